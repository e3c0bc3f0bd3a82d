/**
 * The errors kube's PATCH handler (k8s.io/apiserver/pkg/endpoints/handlers/patch.go) returns, and
 * Go-style renderings of JSON values for the strategic merge patch messages that quote them.
 */
import { ApiError, errors } from '../errors';

/** kube's JSON patch limit: more operations are a 413 */
export const maxJsonPatchOperations = 10000;

/** Go's encoding/json nesting limit */
export const maxJsonDepth = 10000;

/** an error of the strategic merge patch engine; `kind` picks the HTTP status as kube's interpretStrategicMergePatchError does */
export class PatchError extends Error {
  constructor(
    message: string,
    readonly kind: 'badRequest' | 'invalid' | 'internal' = 'internal',
  ) {
    super(message);
    this.name = 'PatchError';
  }
}

/** mergepatch's sentinel errors, with the status class kube maps each to */
export const mergepatchErrors = {
  badPatchFormatForPrimitiveList: () => new PatchError('invalid patch format of primitive list', 'badRequest'),
  badPatchFormatForRetainKeys: () => new PatchError('invalid patch format of retainKeys', 'badRequest'),
  badPatchFormatForSetElementOrderList: () => new PatchError('invalid patch format of setElementOrder list', 'badRequest'),
  unsupportedStrategicMergePatchFormat: () => new PatchError('strategic merge patch format is not supported', 'badRequest'),
  noListOfLists: () => new PatchError('lists of lists are not supported', 'invalid'),
  noMergeKey: (m: Record<string, unknown>, key: string) => new PatchError(`map: ${goValue(m)} does not contain declared merge key: ${key}`),
  badArgType: (expected: 'map' | 'slice', actual: unknown) =>
    new PatchError(`expected a ${expected === 'map' ? 'map[string]interface {}' : '[]interface {}'}, but received a ${goTypeName(actual)}`),
  badPatchType: (directive: unknown, m: Record<string, unknown>) => new PatchError(`unknown patch type: ${goString(directive)} in map: ${goValue(m)}`),
};

/** translate an engine error into the ApiError kube would send */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof PatchError) {
    if (err.kind === 'badRequest') return errors.badRequest(err.message);
    if (err.kind === 'invalid') return unprocessable();
    // kube passes other merge errors through untyped: a 500 whose reason is empty (Unknown)
    return new ApiError(500, undefined, err.message);
  }
  // the call stack ran out before Go's nesting limit: refuse the body rather than crash
  if (err instanceof RangeError) return errors.badRequest('exceeded max depth');
  throw err;
}

/**
 * kube's NewGenericServerResponse(422, ...) as the patch handler uses it for JSON patches that do not
 * apply: the reason is Invalid and the real cause is not in the message.
 */
export function unprocessable(): ApiError {
  return new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

/** reflect.TypeOf(v).String() for decoded JSON values (integers are int64 as kube decodes them) */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return 'map[string]interface {}';
  }
}

/** fmt's %s of an interface value */
function goString(v: unknown): string {
  return typeof v === 'string' ? v : `%!s(${goTypeName(v)}=${goValue(v)})`;
}

/** fmt's %v of a decoded JSON value: map[a:1 b:[x y]] with sorted keys, <nil> for null */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') {
    const m = v as Record<string, unknown>;
    return `map[${Object.keys(m)
      .sort()
      .map((k) => `${k}:${goValue(m[k])}`)
      .join(' ')}]`;
  }
  return String(v);
}
