/**
 * Validation of a write: metadata (ValidateObjectMeta[Update]) and the kind's strategy, all causes in
 * one 422 Invalid. (The schema type check runs earlier, on the decoded body: schema-check.ts.)
 */
import { errors } from '../errors';
import type { StatusCause } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import { validateObjectMeta, validateObjectMetaUpdate } from '../validation';
import type { RegistryContext } from './context';

function fail(kind: KindDefinition, obj: KubeObject, causes: StatusCause[]): never {
  throw errors.invalid(kind.kind, kind.group, obj.metadata?.name ?? '', causes);
}

export function validateForCreate(ctx: RegistryContext, kind: KindDefinition, obj: KubeObject): void {
  const causes = [
    ...validateObjectMeta(obj.metadata, { namespaced: kind.namespaced, nameValidation: kind.nameValidation, isCreate: true }),
    ...kind.strategy.validate(obj),
  ];
  if (causes.length) fail(kind, obj, causes);
}

/** kube's ValidateNoNewFinalizers and the immutability of an unset deletionTimestamp */
function deletionCauses(obj: KubeObject, old: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const oldMeta = old.metadata ?? {};
  const meta = obj.metadata ?? {};
  if (oldMeta.deletionTimestamp) {
    const before = new Set(oldMeta.finalizers ?? []);
    const extra = (meta.finalizers ?? []).filter((f) => !before.has(f));
    if (extra.length) {
      causes.push({
        reason: 'FieldValueForbidden',
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${[...new Set(extra)].sort().map((f) => JSON.stringify(f)).join(', ')}}`,
        field: 'metadata.finalizers',
      });
    }
  } else if (meta.deletionTimestamp) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: "${meta.deletionTimestamp}": field is immutable`, field: 'metadata.deletionTimestamp' });
  }
  return causes;
}

export function validateForUpdate(ctx: RegistryContext, kind: KindDefinition, obj: KubeObject, old: KubeObject): void {
  const causes = [
    ...validateObjectMeta(obj.metadata, { namespaced: kind.namespaced, nameValidation: kind.nameValidation, isCreate: false }),
    ...validateObjectMetaUpdate(obj.metadata, old.metadata),
    ...deletionCauses(obj, old),
    ...kind.strategy.validate(obj, old),
  ];
  if (causes.length) fail(kind, obj, causes);
}

/** a write to the status subresource: metadata update rules plus the kind's status validation */
export function validateForStatusUpdate(ctx: RegistryContext, kind: KindDefinition, obj: KubeObject, old: KubeObject): void {
  const causes = [
    ...validateObjectMeta(obj.metadata, { namespaced: kind.namespaced, nameValidation: kind.nameValidation, isCreate: false }),
    ...validateObjectMetaUpdate(obj.metadata, old.metadata),
    ...deletionCauses(obj, old),
    ...(kind.strategy.validateStatus ? kind.strategy.validateStatus(obj, old) : []),
  ];
  if (causes.length) fail(kind, obj, causes);
}
