/**
 * Managed fields on every write: the registry's bridge to src/api/apply. Each verb calls
 * trackWrite with the object before (undefined on create) and the prepared object after.
 */
import type { KindDefinition, KubeObject } from '../kind';
import { apiVersionOf } from '../scheme';
import { SchemaType, managerOf, updateManagedFields } from '../apply';
import type { FieldManagerScope } from '../apply';
import type { WriteOptions } from './types';
import type { RegistryContext } from './context';
import type { Definitions } from '../../schema/types';
import { timestamp } from './meta';

/** 'status', 'scale', or a declared subresource's name (KindDefinition.subresources) */
export type Subresource = string;

/** the built-in definitions with a kind's own (custom resources), merged once per kind */
const kindDefinitions = new WeakMap<KindDefinition, Definitions>();

function definitionsFor(ctx: RegistryContext, kind: KindDefinition): Definitions | undefined {
  if (!kind.definitions) return ctx.definitions;
  let defs = kindDefinitions.get(kind);
  if (!defs) kindDefinitions.set(kind, (defs = { ...(ctx.definitions ?? {}), ...kind.definitions }));
  return defs;
}

export function fieldManagerScope(ctx: RegistryContext, kind: KindDefinition, subresource?: Subresource): FieldManagerScope {
  const scope: FieldManagerScope = {
    type: SchemaType.forDefinition(definitionsFor(ctx, kind), kind.schemaName),
    apiVersion: apiVersionOf(kind),
    now: timestamp(ctx.clock()),
  };
  if (subresource) scope.subresource = subresource;
  if (subresource === 'status') scope.resetFields = 'allButStatus';
  else if (!subresource && kind.statusSubresource) scope.resetFields = 'status';
  return scope;
}

/** kube's FieldManager.UpdateNoErrors on a create, update or non-apply patch */
export function trackWrite(
  ctx: RegistryContext,
  kind: KindDefinition,
  live: KubeObject | undefined,
  next: KubeObject,
  options: WriteOptions,
  subresource?: Subresource,
): KubeObject {
  updateManagedFields(live, next, managerOf(options.fieldManager, options.userAgent), fieldManagerScope(ctx, kind, subresource));
  return next;
}

/** the stored form with managed field times blanked: kube ignores timestamp-only changes (no-op writes stay no-ops) */
export function withoutManagedFieldTimes(stored: unknown): unknown {
  const meta = (stored as { metadata?: { managedFields?: unknown } } | null)?.metadata;
  if (!meta || !Array.isArray(meta.managedFields)) return stored;
  return {
    ...(stored as object),
    metadata: {
      ...meta,
      managedFields: meta.managedFields.map((e: unknown) => (e && typeof e === 'object' ? { ...(e as object), time: undefined } : e)),
    },
  };
}
