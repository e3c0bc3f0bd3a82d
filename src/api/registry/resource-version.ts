/**
 * resourceVersion semantics (spec 4.7): parsing, and the rv x resourceVersionMatch x paging matrix
 * that decides at which revision a get or list is served.
 */
import { ApiError, errors } from '../errors';
import type { StatusCause } from '../errors';
import type { Store } from '../../storage/store';

/** how long a "not older than" read waits for a revision this server has not reached (kube's cacher: 3s) */
export const DEFAULT_FRESHNESS_WAIT_MS = 3000;

/**
 * parse a non-empty resourceVersion; kube's versioner errors read
 * `invalid resource version: resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax`
 */
export function parseResourceVersion(rv: string): number {
  if (!/^\d+$/.test(rv)) {
    const cause = invalidRvCause(rv);
    throw errors.badRequest(`invalid resource version: ${cause.field}: ${cause.message}`);
  }
  const n = Number(rv);
  if (!Number.isSafeInteger(n)) {
    throw errors.badRequest(`invalid resource version: resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": value out of range`);
  }
  return n;
}

/** the field error kube's versioner reports for an unparseable resourceVersion */
export function invalidRvCause(rv: string): StatusCause {
  return {
    reason: 'FieldValueInvalid',
    message: `Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": invalid syntax`,
    field: 'resourceVersion',
  };
}

/** wait until the store reaches revision (not older than), else 504 Too large resource version */
export async function waitFresh(store: Store, revision: number, waitMs: number): Promise<void> {
  if (store.currentRevision() >= revision) return;
  const reached = await store.waitForRevision(revision, waitMs);
  if (!reached) throw errors.tooLargeResourceVersion(revision, store.currentRevision());
}

/** a revision for an Exact read: 410 when compacted, wait then 504 when in the future */
export async function checkExact(store: Store, revision: number, waitMs: number): Promise<void> {
  if (revision < store.compactRevision()) {
    throw errors.expired('The resourceVersion for the provided list is too old.');
  }
  await waitFresh(store, revision, waitMs);
}

/** a 422 Invalid for a query-options object (ListOptions, DeleteOptions), as kube's handlers answer */
export function invalidOptions(kind: 'ListOptions' | 'DeleteOptions', causes: StatusCause[]): ApiError {
  return errors.invalid(kind, 'meta.k8s.io', '', causes);
}

export function forbiddenCause(field: string, message: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${message}`, field };
}

export function notSupportedCause(field: string, value: string, supported: string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: "${value}": supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
    field,
  };
}

/** kube's ValidateListOptions for a list (not a watch) */
export function validateListOptions(o: { resourceVersion?: string; resourceVersionMatch?: string; continue?: string; sendInitialEvents?: boolean }): void {
  const causes: StatusCause[] = [];
  const match = o.resourceVersionMatch ?? '';
  if (match) {
    if (!o.resourceVersion) causes.push(forbiddenCause('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (o.continue) causes.push(forbiddenCause('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') causes.push(notSupportedCause('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && o.resourceVersion === '0') {
      causes.push(forbiddenCause('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (o.sendInitialEvents !== undefined) causes.push(forbiddenCause('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  if (causes.length) throw invalidOptions('ListOptions', causes);
}

/** kube's ValidateListOptions for a watch (the WatchList feature is on, as in kube 1.32+) */
export function validateWatchOptions(o: { resourceVersionMatch?: string; continue?: string; sendInitialEvents?: boolean }): void {
  const causes: StatusCause[] = [];
  const match = o.resourceVersionMatch ?? '';
  if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    causes.push(forbiddenCause('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match) {
    if (o.sendInitialEvents === undefined) causes.push(forbiddenCause('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') causes.push(notSupportedCause('resourceVersionMatch', match, ['NotOlderThan']));
    if (o.continue) causes.push(forbiddenCause('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  if (causes.length) throw invalidOptions('ListOptions', causes);
}
