/**
 * kube's custom resource strategy (registry/customresource) for one version: defaults from the
 * structural schema; with a status subresource, creates drop status and updates keep the stored
 * one; any change but metadata bumps generation; status writes change nothing but status (and
 * managedFields); validation is the OpenAPI schema, the scale paths, embedded resources and list
 * types (the latter only when the old object already satisfied them), as kube's validator does.
 */
import { ApiError } from '../errors';
import type { StatusCause } from '../errors';
import type { KindStrategy, KubeObject } from '../kind';
import { invalid } from '../validation/field-errors';
import { jsonEqual } from '../json-value';
import type { ScaleSubresource } from './types';
import type { VersionSchema } from './custom-schema';
import { applyDefaults } from './schema/defaulting';
import { validateValue } from './schema/value-validator';
import { validateEmbedded } from './schema/objectmeta';
import { validateListSetsAndMaps } from './schema/listtype';
import { nested, pathKeys } from './custom-scale';

export interface CustomStrategyOptions {
  group: string;
  plural: string;
  /** the schema of an object's version: its own apiVersion when the kind keeps stored versions */
  schemaOf(obj: KubeObject): VersionSchema;
  status: boolean;
  scale?: ScaleSubresource;
  /** the CRD is being deleted: creates are refused (kube's crdHandler) */
  terminating(): boolean;
}

const MAX_INT32 = 2147483647;

/** Go's %T of a decoded JSON value */
function goTypeOf(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** kube's ValidateScaleSpec / ValidateScaleStatus over unstructured.NestedInt64 / NestedString */
function replicasCauses(obj: KubeObject, path: string | undefined): StatusCause[] {
  if (!path) return [];
  const v = nested(obj, pathKeys(path));
  if (v === undefined || v === null) return [];
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    return [invalid(path, 0, `${path} accessor error: ${typeof v === 'object' ? JSON.stringify(v) : String(v)} is of the type ${goTypeOf(v)}, expected int64`)];
  }
  if (v < 0) return [invalid(path, v, 'should be a non-negative integer')];
  if (v > MAX_INT32) return [invalid(path, v, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

function selectorCauses(obj: KubeObject, path: string | undefined): StatusCause[] {
  if (!path) return [];
  const v = nested(obj, pathKeys(path));
  if (v === undefined || v === null || typeof v === 'string') return [];
  return [invalid(path, '', `${path} accessor error: ${typeof v === 'object' ? JSON.stringify(v) : String(v)} is of the type ${goTypeOf(v)}, expected string`)];
}

export function customStrategy(o: CustomStrategyOptions): KindStrategy {
  const schemaValidation = (obj: KubeObject) => {
    const vs = o.schemaOf(obj);
    return [...validateValue(vs.openAPI, obj), ...replicasCauses(obj, o.scale?.specReplicasPath)];
  };
  const statusCauses = (obj: KubeObject) => [...replicasCauses(obj, o.scale?.statusReplicasPath), ...selectorCauses(obj, o.scale?.labelSelectorPath)];
  return {
    defaults(obj) {
      applyDefaults(obj, o.schemaOf(obj).structural);
    },
    prepareForCreate(obj) {
      if (o.terminating()) {
        throw new ApiError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { group: o.group, kind: o.plural });
      }
      if (o.status) delete obj.status;
    },
    prepareForUpdate(obj, old) {
      // without a status subresource a status change is a change like any other
      if (!o.status && !jsonEqual(obj.status ?? null, old.status ?? null)) obj.metadata!.generation = (old.metadata?.generation ?? 0) + 1;
    },
    prepareForStatusUpdate(obj, old) {
      const managedFields = obj.metadata?.managedFields;
      obj.metadata = structuredClone(old.metadata ?? {});
      if (managedFields === undefined) delete obj.metadata.managedFields;
      else obj.metadata.managedFields = managedFields;
    },
    validate(obj, old) {
      const vs = o.schemaOf(obj);
      const causes = [...schemaValidation(obj), ...statusCauses(obj), ...validateEmbedded(obj, vs.structural)];
      if (!old || validateListSetsAndMaps(o.schemaOf(old).structural, old).length === 0) causes.push(...validateListSetsAndMaps(vs.structural, obj));
      return causes;
    },
    validateStatus(obj) {
      return [...validateValue(o.schemaOf(obj).openAPI, obj), ...statusCauses(obj)];
    },
  };
}
