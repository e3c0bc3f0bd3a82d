/**
 * Server-side apply: field sets (FieldsV1), the schema's list/map semantics, compare, merge and
 * prune, and managed fields for every write.
 */
export { FieldSet, FieldSetError, pathString, fieldElement, keyElement, valueElement } from './field-set';
export type { FieldPath, PathElement } from './field-set';
export { SchemaType } from './schema-type';
export { fieldSetOf } from './to-field-set';
export { compareObjects, addedFields } from './compare';
export type { Comparison } from './compare';
export { mergeObjects } from './merge';
export { removeFields } from './remove';
export { decodeManagedFields, encodeManagedFields, identityKey, isResetManagedFields, capUpdateManagers, ManagedFieldsError } from './managed-fields';
export type { Managed, ManagedEntry, ManagerIdentity } from './managed-fields';
export { updateManagedFields, applyManagedFields, ApplyConflicts } from './field-manager';
export type { FieldManagerScope, Conflict, ApplyResult } from './field-manager';
export { conflictError, printManager } from './conflict-error';
export { managerFromUserAgent, managerOf } from './manager-name';
