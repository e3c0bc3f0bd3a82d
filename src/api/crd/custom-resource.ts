/**
 * What a CustomResourceDefinition serves: one KindDefinition per served version (names from
 * status.acceptedNames, as kube serves them), all sharing the storage location
 * `/registry/<group>/<plural>/`, plus the kind of the storage version for conversion at the
 * registry's edge.
 *
 * Conversion between versions, as kube's storage codec does it:
 * - strategy None: synchronous, inside the registry (fromStorage/toStorage): the stored object is
 *   coerced by the schema of the version it was stored in, relabelled, and pruned by the target
 *   version's schema; writes are relabelled to the storage version and pruned by its schema.
 * - strategy Webhook: the registry cannot wait for a webhook while it decodes (lists, the watch
 *   cache and watches decode synchronously), so every kind of such a CRD keeps objects in the
 *   version they were stored in (RegistryKindOptions.keepsStoredVersion) and
 *   with-custom-resources.ts converts at the registry's edge: request bodies to the storage
 *   version before the registry sees them, answers, list items and watch events to the requested
 *   version after (a list, or a run of watch events, is one ConversionReview).
 */
import type { KindDefinition, KubeObject } from '../kind';
import type { RegistryKindOptions } from '../registry/context';
import type { PatchType } from '../registry/types';
import { apiVersionOf, parseApiVersion } from '../scheme';
import type { CrdStatus, JSONSchemaProps, Names, Subresources, Version, WebhookClientConfig } from './types';
import { isObject, specOf, statusOf } from './types';
import type { VersionSchema } from './custom-schema';
import { checkWritten, coerceObject, versionSchema } from './custom-schema';
import { customStrategy } from './custom-strategy';
import { customTable } from './custom-table';
import { customScale, nested, pathKeys } from './custom-scale';
import { customDefinitions, definitionName } from './custom-openapi';

/** custom resources take no strategic merge patch (kube's CR handler) */
const PATCH_TYPES: readonly PatchType[] = ['json', 'merge', 'apply'];

export type CustomKind = KindDefinition & RegistryKindOptions;

export interface WebhookConversionConfig {
  clientConfig: WebhookClientConfig;
  reviewVersions: string[];
}

export interface CustomResource {
  /** the CRD's name (`<plural>.<group>`) and uid: a new uid is a new resource */
  readonly name: string;
  readonly uid: string;
  readonly group: string;
  readonly names: Required<Pick<Names, 'plural' | 'singular' | 'kind' | 'listKind'>> & Pick<Names, 'shortNames' | 'categories'>;
  readonly namespaced: boolean;
  readonly storageVersion: string;
  /** the kinds of the served versions, for the Scheme */
  readonly kinds: CustomKind[];
  /** the kind of the storage version (served or not): what the registry reads and writes */
  readonly storageKind: CustomKind;
  /** set for CRDs converting through a webhook */
  readonly webhook?: WebhookConversionConfig;
  /** the version of a kind of this resource, and its schema */
  schema(version: string): VersionSchema;
  kindFor(version: string): CustomKind | undefined;
  /** the CRD is terminating: creates are refused */
  terminating: boolean;
}

function schemaOf(v: Version): JSONSchemaProps | undefined {
  return isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : undefined;
}

/** Go's print of a selectable field's value (strings, integers and booleans only) */
const fieldValue = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');

export function buildCustomResource(crd: KubeObject): CustomResource {
  const spec = specOf(crd);
  const status: CrdStatus = statusOf(crd);
  const accepted: Names = isObject(status.acceptedNames) ? status.acceptedNames : {};
  const group = String(spec.group ?? '');
  const versions = (Array.isArray(spec.versions) ? spec.versions : []).filter(isObject) as Version[];
  const storage = versions.find((v) => v.storage)?.name ?? versions[0]?.name ?? '';
  const preserve = spec.preserveUnknownFields === true;
  const webhook = isObject(spec.conversion) && spec.conversion.strategy === 'Webhook' && isObject(spec.conversion.webhook)
    ? { clientConfig: spec.conversion.webhook.clientConfig ?? {}, reviewVersions: spec.conversion.webhook.conversionReviewVersions ?? ['v1'] }
    : undefined;
  const schemas = new Map<string, VersionSchema>();
  for (const v of versions) schemas.set(String(v.name), versionSchema(schemaOf(v), preserve));
  const none = versionSchema(undefined, preserve);
  const schema = (version: string) => schemas.get(version) ?? none;
  const versionOf = (obj: KubeObject, fallback: string) => (typeof obj.apiVersion === 'string' && obj.apiVersion.startsWith(`${group}/`) ? parseApiVersion(obj.apiVersion).version : fallback);

  const names = {
    plural: String(accepted.plural ?? ''),
    singular: String(accepted.singular ?? ''),
    kind: String(accepted.kind ?? ''),
    listKind: String(accepted.listKind ?? `${accepted.kind ?? ''}List`),
    shortNames: Array.isArray(accepted.shortNames) ? [...accepted.shortNames] : [],
    categories: Array.isArray(accepted.categories) ? [...accepted.categories] : [],
  };
  const namespaced = spec.scope !== 'Cluster';
  const cr: CustomResource = {
    name: String(crd.metadata?.name ?? ''),
    uid: String(crd.metadata?.uid ?? ''),
    group,
    names,
    namespaced,
    storageVersion: storage,
    kinds: [],
    storageKind: undefined as unknown as CustomKind,
    webhook,
    schema,
    kindFor: (version) => byVersion.get(version),
    terminating: false,
  };
  const byVersion = new Map<string, CustomKind>();
  // subresources and columns per version, as kube's helpers read them from v1
  for (const v of versions) {
    const version = String(v.name);
    const sub: Subresources = isObject(v.subresources) ? v.subresources : {};
    const scale = isObject(sub.scale) ? sub.scale : undefined;
    const vs = schema(version);
    const label = { kind: names.kind, version };
    const kind: CustomKind = {
      group,
      version,
      kind: names.kind,
      listKind: names.listKind,
      resource: names.plural,
      singular: names.singular,
      namespaced,
      shortNames: names.shortNames,
      categories: names.categories,
      storage: { group, resource: names.plural },
      storageVersion: storage,
      schemaName: definitionName(group, version, names.kind),
      tracksGeneration: true,
      statusSubresource: isObject(sub.status),
      strategy: customStrategy({
        group,
        plural: names.plural,
        schemaOf: (obj) => schema(webhook ? versionOf(obj, version) : version),
        status: isObject(sub.status),
        scale,
        terminating: () => cr.terminating,
      }),
      table: customTable(v.additionalPrinterColumns),
      definitions: customDefinitions({ group, version, kind: names.kind, listKind: names.listKind, schema: vs.structural && !preserve ? vs.openAPI : undefined }),
      defaultGarbageCollectionPolicy: 'Background',
      allowUnconditionalUpdate: false,
      patchTypes: PATCH_TYPES,
      checkSchema: (obj, fieldValidation, decodeErrors) => checkWritten(obj, vs, label, fieldValidation, decodeErrors),
    };
    if (scale) kind.scale = customScale(scale);
    const selectable = (Array.isArray(v.selectableFields) ? v.selectableFields : []).map((f) => (isObject(f) ? String(f.jsonPath ?? '') : '')).filter((p) => p.startsWith('.'));
    if (selectable.length) {
      kind.selectableFields = (obj) => Object.fromEntries(selectable.map((p) => [p.slice(1), fieldValue(nested(obj, pathKeys(p)))]));
    }
    if (webhook) {
      // objects stay in the version they were stored in; with-custom-resources.ts converts them
      kind.keepsStoredVersion = true;
      kind.fromStorage = (stored) => {
        coerceObject(stored, schema(versionOf(stored, storage)), true);
        repairGeneration(stored);
        return stored;
      };
    } else {
      kind.fromStorage = (stored) => {
        const from = versionOf(stored, storage);
        coerceObject(stored, schema(from), true);
        repairGeneration(stored);
        if (from !== version) {
          stored.apiVersion = apiVersionOf(kind);
          coerceObject(stored, vs, true);
        }
        return stored;
      };
      kind.toStorage = (obj) => {
        obj.apiVersion = `${group}/${storage}`;
        if (version !== storage) coerceObject(obj, schema(storage), true);
        return obj;
      };
    }
    byVersion.set(version, kind);
    if (v.served) cr.kinds.push(kind);
  }
  (cr as { storageKind: CustomKind }).storageKind = byVersion.get(storage) ?? cr.kinds[0];
  return cr;
}

/** kube's repairGeneration: objects stored before generation was tracked read as generation 1 */
function repairGeneration(obj: KubeObject): void {
  if (isObject(obj.metadata) && !obj.metadata.generation) obj.metadata.generation = 1;
}

/** the CRD versions kube would serve (served: true), in the order of spec.versions */
export function servedVersions(crd: KubeObject): string[] {
  return (Array.isArray(specOf(crd).versions) ? specOf(crd).versions! : []).filter((v) => isObject(v) && v.served).map((v) => String(v.name));
}

/** the spec and accepted names a serving of this CRD depends on (a change means new kinds) */
export function servingKey(crd: KubeObject): string {
  return JSON.stringify([crd.metadata?.uid, specOf(crd), statusOf(crd).acceptedNames ?? null]);
}
