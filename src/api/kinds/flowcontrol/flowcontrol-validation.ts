/**
 * kube's flowcontrol validation (pkg/apis/flowcontrol/validation) on the v1 form of an object,
 * with the shares field named as the request's version names it. The mandatory objects' spec is
 * fixed (the exempt priority level's `exempt` settings excepted, as kube 1.28+ allows).
 */
import type { StatusCause } from '../../errors';
import type { KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { duplicate, forbidden, invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/names';
import { arrAt, clone, isObj, num, objAt, str } from '../util';
import type { Obj } from '../util';
import { mandatorySpec } from './flowcontrol-bootstrap-objects';
import type { FlowcontrolVersion } from './flowcontrol-conversion';
import { sharesField } from './flowcontrol-conversion';
import { defaultPriorityLevel } from './flowcontrol-defaults';

const MAX_MATCHING_PRECEDENCE = 10000;
const MAX_QUEUES = 10 * 1000 * 1000;
/** shufflesharding.MaxHashBits */
const MAX_HASH_BITS = 60;
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const DISTINGUISHERS = ['ByNamespace', 'ByUser'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => str(x)) : []);
const hasWildcard = (list: string[]): boolean => list.includes('*');

/** Go's semantic equality for these specs: nil, empty, false and "" are alike; pointers' zeros are not dropped */
function normalized(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(normalized);
  if (isObj(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      const n = normalized(x);
      if (n !== undefined) out[k] = n;
    }
    return out;
  }
  return v === null || v === false || v === '' ? undefined : v;
}

const sameSpec = (a: unknown, b: unknown): boolean => jsonEqual(normalized(a), normalized(b));

function validateVerbs(verbs: string[], field: string): StatusCause[] {
  if (verbs.length === 0) return [required(field, 'verbs must contain at least one value')];
  if (hasWildcard(verbs)) return verbs.length > 1 ? [invalid(field, verbs, "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((v) => VERBS.includes(v)) ? [] : [notSupported(field, verbs, VERBS)];
}

/** kube's ValidateNonResourceURLPath */
function nonResourceURLError(path: string, field: string): StatusCause | undefined {
  if (path === '') return invalid(field, path, 'must not be empty');
  if (path === '/') return undefined;
  if (!path.startsWith('/')) return invalid(field, path, 'must start with slash');
  if (path.includes(' ')) return invalid(field, path, 'must not contain white-space');
  if (path.includes('//')) return invalid(field, path, 'must not contain double slash');
  const wildcards = path.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !path.endsWith('/*'))) return invalid(field, path, 'wildcard can only do suffix matching');
  return undefined;
}

function validateResourceRule(rule: Obj, field: string): StatusCause[] {
  const causes = validateVerbs(strings(rule.verbs), `${field}.verbs`);
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) causes.push(required(`${field}.apiGroups`, 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && hasWildcard(groups)) causes.push(invalid(`${field}.apiGroups`, groups, "if '*' is present, must not specify other api groups"));
  const resources = strings(rule.resources);
  if (resources.length === 0) causes.push(required(`${field}.resources`, 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && hasWildcard(resources)) causes.push(invalid(`${field}.resources`, resources, "if '*' is present, must not specify other resources"));
  const namespaces = strings(rule.namespaces);
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    causes.push(required(`${field}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (hasWildcard(namespaces)) {
    if (namespaces.length > 1) causes.push(invalid(`${field}.namespaces`, namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of isDNS1123Label(ns)) causes.push(invalid(`${field}.namespaces[${i}]`, ns, NS_INTRO + msg));
    });
  }
  return causes;
}

function validateNonResourceRule(rule: Obj, field: string): StatusCause[] {
  const causes = validateVerbs(strings(rule.verbs), `${field}.verbs`);
  const urls = strings(rule.nonResourceURLs);
  if (urls.length === 0) causes.push(required(`${field}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  else if (hasWildcard(urls)) {
    if (urls.length > 1) causes.push(invalid(`${field}.nonResourceURLs`, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => {
      const err = nonResourceURLError(u, `${field}.nonResourceURLs[${i}]`);
      if (err) causes.push(err);
    });
  }
  return causes;
}

const KIND_FIELDS: Record<string, string> = { User: 'user', Group: 'group', ServiceAccount: 'serviceAccount' };
const OTHERS_FORBIDDEN: Record<string, string> = {
  user: "user is forbidden when subject kind is not 'User'",
  group: "group is forbidden when subject kind is not 'Group'",
  serviceAccount: "serviceAccount is forbidden when subject kind is not 'ServiceAccount'",
};

function validateSubject(subject: Obj, field: string): StatusCause[] {
  const kind = str(subject.kind);
  const own = KIND_FIELDS[kind];
  if (!own) return [notSupported(`${field}.kind`, kind, SUBJECT_KINDS)];
  const causes: StatusCause[] = [];
  const value = subject[own];
  if (!isObj(value)) {
    causes.push(required(`${field}.${own}`, `${own} is required when subject kind is '${kind}'`));
  } else if (own === 'serviceAccount') {
    const name = str(value.name);
    if (!name) causes.push(required(`${field}.serviceAccount.name`, ''));
    else if (name !== '*') for (const msg of isDNS1123Subdomain(name)) causes.push(invalid(`${field}.serviceAccount.name`, name, msg));
    const ns = str(value.namespace);
    if (!ns) causes.push(required(`${field}.serviceAccount.namespace`, 'must specify namespace for service account'));
    else for (const msg of isDNS1123Label(ns)) causes.push(invalid(`${field}.serviceAccount.namespace`, ns, msg));
  } else if (!str(value.name)) {
    causes.push(required(`${field}.${own}.name`, ''));
  }
  // kube lists the other kinds' fields in this order: serviceAccount, user, group
  for (const other of ['serviceAccount', 'user', 'group']) {
    if (other !== own && subject[other] !== undefined && subject[other] !== null) causes.push(forbidden(`${field}.${other}`, OTHERS_FORBIDDEN[other]));
  }
  return causes;
}

function validateRule(rule: Obj, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const subjects = arrAt(rule, 'subjects');
  if (subjects.length === 0) causes.push(required(`${field}.subjects`, 'subjects must contain at least one value'));
  subjects.forEach((s, i) => causes.push(...validateSubject(isObj(s) ? s : {}, `${field}.subjects[${i}]`)));
  const resourceRules = arrAt(rule, 'resourceRules');
  const nonResourceRules = arrAt(rule, 'nonResourceRules');
  if (resourceRules.length === 0 && nonResourceRules.length === 0) {
    causes.push(required(field, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  }
  resourceRules.forEach((r, i) => causes.push(...validateResourceRule(isObj(r) ? r : {}, `${field}.resourceRules[${i}]`)));
  nonResourceRules.forEach((r, i) => causes.push(...validateNonResourceRule(isObj(r) ? r : {}, `${field}.nonResourceRules[${i}]`)));
  return causes;
}

function validateConditions(status: unknown): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  arrAt(status, 'conditions').forEach((c, i) => {
    const type = str(isObj(c) ? c.type : undefined);
    if (seen.has(type)) causes.push(duplicate(`status.conditions[${i}].type`, type));
    seen.add(type);
    if (!type) causes.push(required(`status.conditions[${i}].type`, 'must not be empty'));
  });
  return causes;
}

/** kube's ValidateFlowSchema (create and update alike) */
export function validateFlowSchema(obj: KubeObject): StatusCause[] {
  const name = str(obj.metadata?.name);
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const precedence = num(spec.matchingPrecedence) ?? 0;
  if (precedence <= 0) causes.push(invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > MAX_MATCHING_PRECEDENCE) causes.push(invalid('spec.matchingPrecedence', precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
  if (precedence === 1 && name !== 'exempt') causes.push(invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const method = objAt(spec, 'distinguisherMethod');
  if (method && !DISTINGUISHERS.includes(str(method.type))) {
    // kube prints the whole struct with %#v
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:${JSON.stringify(str(method.type))}}: supported values: ${DISTINGUISHERS.map((d) => JSON.stringify(d)).join(', ')}`,
      field: 'spec.distinguisherMethod.type',
    });
  }
  const plName = str(objAt(spec, 'priorityLevelConfiguration')?.name);
  if (!plName) causes.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  else for (const msg of isDNS1123Subdomain(plName)) causes.push(invalid('spec.priorityLevelConfiguration.name', plName, msg));
  arrAt(spec, 'rules').forEach((r, i) => causes.push(...validateRule(isObj(r) ? r : {}, `spec.rules[${i}]`)));
  const fixed = mandatorySpec('FlowSchema', name);
  if (fixed) {
    const withDefaults = { matchingPrecedence: 1000, ...spec };
    if (!sameSpec(withDefaults, fixed)) causes.push(invalid('spec', spec, `spec of '${name}' must equal the fixed value`));
  }
  causes.push(...validateConditions(obj.status));
  return causes;
}

function validateLimited(limited: Obj, version: FlowcontrolVersion): StatusCause[] {
  const causes: StatusCause[] = [];
  const sharesName = sharesField(version);
  const shares = num(limited.nominalConcurrencyShares) ?? 0;
  // kube 1.30+ allows zero shares (the old 1.29 rule wanted them positive)
  if (shares < 0) causes.push(invalid(`spec.limited.${sharesName}`, shares, 'must be a non-negative integer'));
  const response = objAt(limited, 'limitResponse') ?? {};
  const type = str(response.type);
  const queuing = objAt(response, 'queuing');
  if (type === 'Reject') {
    if (response.queuing !== undefined && response.queuing !== null) causes.push(forbidden('spec.limited.limitResponse.queuing', 'must be nil if limited.limitResponse.type is not Limited'));
  } else if (type === 'Queue') {
    if (!queuing) causes.push(required('spec.limited.limitResponse.queuing', 'must not be empty if limited.limitResponse.type is Limited'));
    else causes.push(...validateQueuing(queuing, 'spec.limited.limitResponse.queuing'));
  } else {
    causes.push(notSupported('spec.limited.limitResponse.type', type, ['Queue', 'Reject']));
  }
  const lendable = limited.lendablePercent;
  if (typeof lendable === 'number' && (lendable < 0 || lendable > 100)) causes.push(invalid('spec.limited.lendablePercent', lendable, 'must be between 0 and 100, inclusive'));
  const borrowing = limited.borrowingLimitPercent;
  if (typeof borrowing === 'number' && borrowing < 0) causes.push(invalid('spec.limited.borrowingLimitPercent', borrowing, 'if specified, must be a non-negative integer'));
  return causes;
}

function validateQueuing(q: Obj, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const limit = num(q.queueLengthLimit) ?? 0;
  if (limit <= 0) causes.push(invalid(`${field}.queueLengthLimit`, limit, 'must be positive'));
  const queues = num(q.queues) ?? 0;
  if (queues <= 0) causes.push(invalid(`${field}.queues`, queues, 'must be positive'));
  else if (queues > MAX_QUEUES) causes.push(invalid(`${field}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  const hand = num(q.handSize) ?? 0;
  if (hand <= 0) causes.push(invalid(`${field}.handSize`, hand, 'must be positive'));
  else if (hand > queues) causes.push(invalid(`${field}.handSize`, hand, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * hand) > MAX_HASH_BITS) {
    causes.push(invalid(`${field}.handSize`, hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`));
  }
  return causes;
}

/** kube's ValidatePriorityLevelConfiguration on the v1 form; `version` is the request's */
export function validatePriorityLevel(obj: KubeObject, version: FlowcontrolVersion): StatusCause[] {
  const name = str(obj.metadata?.name);
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const type = str(spec.type);
  if ((name === 'exempt') !== (type === 'Exempt')) causes.push(invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  if (type === 'Exempt') {
    if (spec.limited !== undefined && spec.limited !== null) causes.push(forbidden('spec.limited', 'must be nil if the type is not Limited'));
    const exempt = objAt(spec, 'exempt');
    if (exempt) {
      const shares = exempt.nominalConcurrencyShares;
      if (typeof shares === 'number' && shares < 0) causes.push(invalid('spec.exempt.nominalConcurrencyShares', shares, 'must be a non-negative integer'));
      const lendable = exempt.lendablePercent;
      if (typeof lendable === 'number' && (lendable < 0 || lendable > 100)) causes.push(invalid('spec.exempt.lendablePercent', lendable, 'must be between 0 and 100, inclusive'));
    }
  } else if (type === 'Limited') {
    if (spec.exempt !== undefined && spec.exempt !== null) causes.push(forbidden('spec.exempt', 'must be nil if the type is Limited'));
    const limited = objAt(spec, 'limited');
    if (!limited) causes.push(required('spec.limited', 'must not be empty when type is Limited'));
    else causes.push(...validateLimited(limited, version));
  } else {
    causes.push(notSupported('spec.type', type, ['Exempt', 'Limited']));
  }
  const fixed = mandatorySpec('PriorityLevelConfiguration', name);
  if (fixed) {
    // compared with v1's defaults in place, as kube compares its internal (defaulted) objects
    const have = clone(obj);
    defaultPriorityLevel('v1', have);
    const haveSpec = objAt(have, 'spec') ?? {};
    if (name === 'exempt') {
      // kube 1.28+: the exempt level's settings are the administrator's to change
      if (!sameSpec({ ...haveSpec, exempt: fixed.exempt }, fixed)) causes.push(invalid('spec', spec, "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value"));
    } else if (!sameSpec(haveSpec, fixed)) {
      causes.push(invalid('spec', spec, `spec of '${name}' must equal the fixed value`));
    }
  }
  causes.push(...validateConditions(obj.status));
  return causes;
}

/** kube's ValidateFlowSchemaStatusUpdate / ValidatePriorityLevelConfigurationStatusUpdate */
export function validateFlowcontrolStatus(obj: KubeObject): StatusCause[] {
  return validateConditions(obj.status);
}
