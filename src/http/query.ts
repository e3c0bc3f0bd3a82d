/**
 * Query parameters -> the registry's typed options, with kube's parsing and its errors: a non-integer
 * is a 400 with Go's ParseInt message; invalid option values are a 422 Invalid on the options kind
 * (`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ...`), as kube validates them.
 */
import { errors } from '../api/errors';
import type { ApiError, StatusCause } from '../api/errors';
import type { DeleteOptions, GetOptions, ListOptions, PatchType, WriteOptions } from '../api/registry/types';
import type { IncludeObject } from '../api/table';
import { isTrueFlag } from './request-info';

export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}

export function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  return q.has(name) ? isTrueFlag(q.get(name)) : undefined;
}

function strParam(q: URLSearchParams, name: string): string | undefined {
  return q.get(name) ?? undefined;
}

/** a field error as kube's field.Error renders it (the cause's message is the part after the field) */
export function notSupported(field: string, value: string, supported: string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${value}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  };
}

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

function invalidOptions(kind: string, causes: StatusCause[]): ApiError {
  return errors.invalid(kind, 'meta.k8s.io', '', causes);
}

/** Go's %#v of a []string: []string{"a", "b"} */
function goStringSlice(values: string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

function dryRunCauses(values: string[]): StatusCause[] {
  return values.every((v) => v === 'All') ? [] : [notSupported('dryRun', goStringSlice(values), ['All'])];
}

/** kube's ValidateFieldManager: at most 128 bytes, printable characters only */
function fieldManagerCauses(fm: string | undefined): StatusCause[] {
  if (fm === undefined) return [];
  const causes: StatusCause[] = [];
  if (Buffer.byteLength(fm) > 128) causes.push({ reason: 'FieldValueTooLong', field: 'fieldManager', message: 'Too long: may not be more than 128 bytes' });
  let i = 0;
  for (const ch of fm) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
      const cp = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      causes.push({ reason: 'FieldValueInvalid', field: 'fieldManager', message: `Invalid value: ${JSON.stringify(fm)}: invalid character U+${cp} (at position ${i})` });
    }
    i += Buffer.byteLength(ch);
  }
  return causes;
}

const fieldValidationValues = ['', 'Ignore', 'Strict', 'Warn'];

function fieldValidationCauses(fv: string | undefined): StatusCause[] {
  if (fv === undefined || fieldValidationValues.includes(fv)) return [];
  return [notSupported('fieldValidation', JSON.stringify(fv), fieldValidationValues)];
}

function writeOptions(q: URLSearchParams, optionsKind: string, extra: StatusCause[] = []): WriteOptions {
  const dryRun = q.getAll('dryRun');
  const fieldManager = strParam(q, 'fieldManager');
  const fieldValidation = strParam(q, 'fieldValidation');
  const causes = [...extra, ...fieldManagerCauses(fieldManager), ...dryRunCauses(dryRun), ...fieldValidationCauses(fieldValidation)];
  if (causes.length > 0) throw invalidOptions(optionsKind, causes);
  const opts: WriteOptions = { dryRun: dryRun.length > 0 };
  if (fieldManager) opts.fieldManager = fieldManager;
  if (fieldValidation) opts.fieldValidation = fieldValidation as WriteOptions['fieldValidation'];
  return opts;
}

export function parseCreateOptions(q: URLSearchParams): WriteOptions {
  return writeOptions(q, 'CreateOptions');
}

export function parseUpdateOptions(q: URLSearchParams): WriteOptions {
  return writeOptions(q, 'UpdateOptions');
}

/** kube's ValidatePatchOptions: apply needs a fieldManager; force is for apply only */
export function parsePatchOptions(q: URLSearchParams, type: PatchType): WriteOptions & { force?: boolean } {
  const force = boolParam(q, 'force');
  const extra: StatusCause[] = [];
  if (type === 'apply' && !q.get('fieldManager')) {
    extra.push({ reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' });
  }
  if (type !== 'apply' && force !== undefined) extra.push(forbidden('force', 'may not be specified for non-apply patch'));
  const opts: WriteOptions & { force?: boolean } = writeOptions(q, 'PatchOptions', extra);
  if (force !== undefined) opts.force = force;
  return opts;
}

export function parseGetOptions(q: URLSearchParams): GetOptions {
  const rv = strParam(q, 'resourceVersion');
  return rv === undefined ? {} : { resourceVersion: rv };
}

/** list, watch and deletecollection parameters, with kube's ValidateListOptions (422 ListOptions) */
export function parseListOptions(q: URLSearchParams, watch: boolean): ListOptions {
  const opts: ListOptions = {};
  for (const name of ['labelSelector', 'fieldSelector', 'resourceVersion', 'resourceVersionMatch', 'continue'] as const) {
    const v = strParam(q, name);
    if (v !== undefined && v !== '') opts[name] = v;
  }
  for (const name of ['limit', 'timeoutSeconds'] as const) {
    const v = intParam(q, name);
    if (v !== undefined) opts[name] = v;
  }
  for (const name of ['allowWatchBookmarks', 'sendInitialEvents'] as const) {
    const v = boolParam(q, name);
    if (v !== undefined) opts[name] = v;
  }
  const causes = watch ? watchOptionCauses(opts) : listOptionCauses(opts);
  if (causes.length > 0) throw invalidOptions('ListOptions', causes);
  return opts;
}

function listOptionCauses(o: ListOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  const match = o.resourceVersionMatch;
  if (match) {
    if (!o.resourceVersion) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (o.continue) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      causes.push(notSupported('resourceVersionMatch', JSON.stringify(match), ['Exact', 'NotOlderThan', '']));
    }
    if (match === 'Exact' && o.resourceVersion === '0') {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (o.sendInitialEvents !== undefined) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return causes;
}

function watchOptionCauses(o: ListOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  const match = o.resourceVersionMatch;
  if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match) {
    if (o.sendInitialEvents === undefined) {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', JSON.stringify(match), ['NotOlderThan']));
    if (o.continue) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return causes;
}

const propagationPolicies = ['Foreground', 'Background', 'Orphan'];

/**
 * DeleteOptions: from the body when there is one, else from the query (kube reads one or the other,
 * never both), then kube's ValidateDeleteOptions (422 DeleteOptions).
 */
export function parseDeleteOptions(q: URLSearchParams, body: Record<string, unknown> | undefined): DeleteOptions {
  const raw = body ? deleteOptionsFromBody(body) : deleteOptionsFromQuery(q);
  const causes: StatusCause[] = [];
  if (raw.orphanDependents !== undefined && raw.propagationPolicy !== undefined) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'propagationPolicy',
      message: `Invalid value: ${JSON.stringify(raw.propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (raw.propagationPolicy !== undefined && !propagationPolicies.includes(raw.propagationPolicy)) {
    causes.push(notSupported('propagationPolicy', JSON.stringify(raw.propagationPolicy), [...propagationPolicies, 'nil']));
  }
  causes.push(...dryRunCauses(raw.dryRun));
  if (causes.length > 0) throw invalidOptions('DeleteOptions', causes);
  const opts: DeleteOptions = { dryRun: raw.dryRun.length > 0 };
  if (raw.gracePeriodSeconds !== undefined) opts.gracePeriodSeconds = raw.gracePeriodSeconds;
  if (raw.orphanDependents !== undefined) opts.orphanDependents = raw.orphanDependents;
  if (raw.propagationPolicy !== undefined) opts.propagationPolicy = raw.propagationPolicy;
  if (raw.preconditions !== undefined) opts.preconditions = raw.preconditions;
  return opts;
}

interface RawDeleteOptions {
  dryRun: string[];
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
}

function deleteOptionsFromQuery(q: URLSearchParams): RawDeleteOptions {
  const raw: RawDeleteOptions = { dryRun: q.getAll('dryRun') };
  const grace = intParam(q, 'gracePeriodSeconds');
  if (grace !== undefined) raw.gracePeriodSeconds = grace;
  const orphan = boolParam(q, 'orphanDependents');
  if (orphan !== undefined) raw.orphanDependents = orphan;
  const policy = strParam(q, 'propagationPolicy');
  if (policy !== undefined) raw.propagationPolicy = policy;
  return raw;
}

function decodeError(field: string, want: string, got: unknown): ApiError {
  return errors.badRequest(`json: cannot unmarshal ${typeof got} into Go struct field DeleteOptions.${field} of type ${want}`);
}

function deleteOptionsFromBody(body: Record<string, unknown>): RawDeleteOptions {
  if (body.kind !== undefined && body.kind !== 'DeleteOptions') {
    throw errors.badRequest('decoded object cannot be converted to DeleteOptions');
  }
  const raw: RawDeleteOptions = { dryRun: [] };
  const { dryRun, gracePeriodSeconds, orphanDependents, propagationPolicy, preconditions } = body;
  if (dryRun !== undefined && dryRun !== null) {
    if (!Array.isArray(dryRun) || !dryRun.every((d) => typeof d === 'string')) throw decodeError('dryRun', '[]string', dryRun);
    raw.dryRun = dryRun;
  }
  if (gracePeriodSeconds !== undefined && gracePeriodSeconds !== null) {
    if (typeof gracePeriodSeconds !== 'number' || !Number.isInteger(gracePeriodSeconds)) throw decodeError('gracePeriodSeconds', 'int64', gracePeriodSeconds);
    raw.gracePeriodSeconds = gracePeriodSeconds;
  }
  if (orphanDependents !== undefined && orphanDependents !== null) {
    if (typeof orphanDependents !== 'boolean') throw decodeError('orphanDependents', 'bool', orphanDependents);
    raw.orphanDependents = orphanDependents;
  }
  if (propagationPolicy !== undefined && propagationPolicy !== null) {
    if (typeof propagationPolicy !== 'string') throw decodeError('propagationPolicy', 'v1.DeletionPropagation', propagationPolicy);
    raw.propagationPolicy = propagationPolicy;
  }
  if (preconditions !== undefined && preconditions !== null) {
    if (typeof preconditions !== 'object' || Array.isArray(preconditions)) throw decodeError('preconditions', 'v1.Preconditions', preconditions);
    const p = preconditions as Record<string, unknown>;
    raw.preconditions = {};
    if (typeof p.uid === 'string') raw.preconditions.uid = p.uid;
    if (typeof p.resourceVersion === 'string') raw.preconditions.resourceVersion = p.resourceVersion;
  }
  return raw;
}

/** `includeObject` of a Table request (default Metadata); anything else is kube's 400 */
export function parseIncludeObject(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw errors.badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}
