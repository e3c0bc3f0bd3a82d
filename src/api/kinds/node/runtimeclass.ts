/**
 * RuntimeClass, cluster-scoped, served as node.k8s.io/v1, v1beta1 and v1alpha1 and stored as v1.
 * v1 and v1beta1 have `handler`, `overhead` and `scheduling` at the top level; v1alpha1 keeps them
 * under `spec`, the handler named `runtimeHandler`. kube's validation (on the v1 form, so the field
 * paths are v1's in every version): the handler is a DNS label and immutable, the overhead holds
 * non-negative container resources, scheduling has valid node labels and tolerations.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { immutable, invalid } from '../../validation/field-errors';
import { isDNS1123Label } from '../../validation/names';
import { validateLabels } from '../../validation/object-meta';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { sameFieldsConversion } from '../same-fields-conversion';
import { arrAt, clone, objAt, str } from '../util';
import { duplicateTolerations, validateResourceLimits, validateTolerations } from './scheduling-constraints';

const FIELDS = ['overhead', 'scheduling'];

/** v1alpha1 -> v1: spec.runtimeHandler/overhead/scheduling up to the top level */
export function runtimeClassAlphaToV1(obj: KubeObject): KubeObject {
  const { spec, ...rest } = clone(obj);
  const out: KubeObject = { ...rest, apiVersion: 'node.k8s.io/v1' };
  const s = objAt({ spec }, 'spec') ?? {};
  if (s.runtimeHandler !== undefined) out.handler = s.runtimeHandler;
  for (const f of FIELDS) if (s[f] !== undefined) out[f] = s[f];
  return out;
}

/** v1 -> v1alpha1 */
export function runtimeClassV1ToAlpha(obj: KubeObject): KubeObject {
  const { handler, overhead, scheduling, ...rest } = clone(obj);
  const spec: Record<string, unknown> = { runtimeHandler: typeof handler === 'string' ? handler : '' };
  if (overhead !== undefined) spec.overhead = overhead;
  if (scheduling !== undefined) spec.scheduling = scheduling;
  return { ...rest, apiVersion: 'node.k8s.io/v1alpha1', spec };
}

/** kube's ValidateRuntimeClass (and, on update, the immutable handler) on v1 forms */
export function validateRuntimeClass(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const handler = str(obj.handler);
  const causes = isDNS1123Label(handler).map((msg) => invalid('handler', handler, msg));
  const podFixed = objAt(objAt(obj, 'overhead'), 'podFixed');
  if (podFixed) causes.push(...validateResourceLimits(podFixed, 'overhead'));
  const scheduling = objAt(obj, 'scheduling');
  if (scheduling) {
    causes.push(...validateLabels(scheduling.nodeSelector, 'scheduling.nodeSelector'));
    const tolerations = arrAt(scheduling, 'tolerations');
    // kube appends "tolerations" twice to the path of the core checks (not of its duplicate check)
    causes.push(...validateTolerations(tolerations, 'scheduling.tolerations.tolerations'));
    causes.push(...duplicateTolerations(tolerations, 'scheduling.tolerations'));
  }
  if (old) causes.push(...immutable('handler', obj.handler, old.handler));
  return causes;
}

export function runtimeClassKind(version: 'v1' | 'v1beta1' | 'v1alpha1'): KindDefinition {
  const apiVersion = `node.k8s.io/${version}`;
  const alpha = version === 'v1alpha1';
  const toV1 = (obj: KubeObject): KubeObject => (alpha ? runtimeClassAlphaToV1(obj) : obj);
  const conversion = alpha
    ? { fromStorage: runtimeClassV1ToAlpha, toStorage: runtimeClassAlphaToV1 }
    : sameFieldsConversion(apiVersion, 'node.k8s.io/v1');
  return {
    group: 'node.k8s.io',
    version,
    kind: 'RuntimeClass',
    listKind: 'RuntimeClassList',
    resource: 'runtimeclasses',
    singular: 'runtimeclass',
    namespaced: false,
    shortNames: [],
    categories: [],
    storage: { group: 'node.k8s.io', resource: 'runtimeclasses' },
    storageVersion: 'v1',
    ...conversion,
    schemaName: `io.k8s.api.node.${version}.RuntimeClass`,
    tracksGeneration: false,
    statusSubresource: false,
    strategy: {
      defaults() {},
      validate: (obj, old) => validateRuntimeClass(toV1(obj), old ? toV1(old) : undefined),
    },
    table: {
      columns: [nameColumn(), column('Handler', 'string', 'Name of the runtime handler.'), ageColumn()],
      cells: (obj, now) => [str(obj.metadata?.name), str(toV1(obj).handler), age(obj, now)],
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}

