/**
 * kube's validation of access reviews (pkg/apis/authorization/validation), with its messages:
 * exactly one of resourceAttributes / nonResourceAttributes; SubjectAccessReview and
 * LocalSubjectAccessReview name a user or groups; metadata stays empty (LocalSubjectAccessReview:
 * but for the namespace, which the resource attributes must repeat).
 */
import type { StatusCause } from '../errors';
import type { KubeObject } from '../kind';
import { isObj } from '../kinds/util';
import { invalid } from '../validation/field-errors';
import type { AccessReviewKindName } from './kinds';

/** a pointer field in Go: absent and null are nil, anything else (even `{}`) is set */
function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** Go's zero value test as apiequality.Semantic sees it: empty maps and lists equal nil */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObj(v)) return Object.values(v).every(isZero);
  return false;
}

/** the value of a nil pointer as kube's field errors print it */
const NIL = 'null';

/**
 * a NonResourceAttributes value as Go's `%#v` prints it in a field error:
 * `authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}`
 */
function formatNonResource(v: unknown): string {
  const o = isObj(v) ? v : {};
  const s = (x: unknown): string => JSON.stringify(typeof x === 'string' ? x : '');
  return `authorization.NonResourceAttributes{Path:${s(o.path)}, Verb:${s(o.verb)}}`;
}

/** a FieldValueInvalid cause whose value is already printed (Go's `%#v` of a struct is not quoted) */
function invalidPrinted(field: string, printed: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${printed}: ${detail}`, field };
}

function validateAttributes(spec: Record<string, unknown>): StatusCause[] {
  const causes: StatusCause[] = [];
  const hasResource = isSet(spec.resourceAttributes);
  const hasNonResource = isSet(spec.nonResourceAttributes);
  if (hasResource && hasNonResource) {
    causes.push(invalidPrinted('spec.nonResourceAttributes', formatNonResource(spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes'));
  }
  if (!hasResource && !hasNonResource) {
    causes.push(invalid('spec.resourceAttributes', NIL, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  return causes;
}

function validateSubject(spec: Record<string, unknown>): StatusCause[] {
  const user = typeof spec.user === 'string' ? spec.user : '';
  const groups = Array.isArray(spec.groups) ? spec.groups : [];
  return user === '' && groups.length === 0 ? [invalid('spec.user', user, 'at least one of user or group must be specified')] : [];
}

function metadataCause(meta: Record<string, unknown>, exceptNamespace: boolean): StatusCause[] {
  // managedFields are ignored, as kube clears them before comparing with the empty ObjectMeta
  const rest = Object.entries(meta).filter(([k]) => k !== 'managedFields' && !(exceptNamespace && k === 'namespace'));
  if (rest.every(([, v]) => isZero(v))) return [];
  // kube prints the whole Go struct here; the JSON of what was sent says the same more readably
  return [invalidPrinted('metadata', JSON.stringify(meta), exceptNamespace ? 'must be empty except for namespace' : 'must be empty')];
}

/**
 * the problems of a review object of the given kind (empty = valid). For LocalSubjectAccessReview,
 * metadata.namespace must already be filled from the request, as kube's create handler does first.
 */
export function validateReview(kind: AccessReviewKindName, obj: KubeObject): StatusCause[] {
  const spec = isObj(obj.spec) ? obj.spec : {};
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  const causes = validateAttributes(spec);
  if (kind === 'SelfSubjectAccessReview') return [...causes, ...metadataCause(meta, false)];
  causes.push(...validateSubject(spec));
  if (kind === 'SubjectAccessReview') return [...causes, ...metadataCause(meta, false)];

  causes.push(...metadataCause(meta, true));
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const ra = spec.resourceAttributes;
  if (isSet(ra)) {
    const raNamespace = isObj(ra) && typeof ra.namespace === 'string' ? ra.namespace : '';
    if (raNamespace !== namespace) causes.push(invalid('spec.resourceAttributes.namespace', raNamespace, 'must match metadata.namespace'));
  }
  if (isSet(spec.nonResourceAttributes)) {
    causes.push(invalidPrinted('spec.nonResourceAttributes', formatNonResource(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  }
  return causes;
}
