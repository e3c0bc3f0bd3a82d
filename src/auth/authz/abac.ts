/**
 * kube's ABAC authorizer (--authorization-policy-file): one JSON policy a line, either the
 * unversioned v0 form ({"user":"alice","resource":"pods","readonly":true}) or
 * abac.authorization.kubernetes.io/v1beta1 Policy. A request is allowed by the first policy whose
 * subject, verb (read-only requests match every policy) and resource or path match; otherwise
 * "No policy matched." with no opinion. Blank lines and lines starting with # are skipped.
 */
import { fileErrorWords } from '../../util/files';
import fs from 'node:fs';
import type { AuthorizationAttributes, Authorizer, Decision, RulesResult, UserInfo } from '../../api/reviews/authorizer';
import { AUTHENTICATED_GROUP } from '../user';

/** the internal form every version converts to */
export interface AbacPolicy {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

const V1BETA1 = 'abac.authorization.kubernetes.io/v1beta1';
const READ_VERBS = ['get', 'list', 'watch'];

const s = (v: unknown, field: string): string => {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new Error(`${field} must be a string`);
  return v;
};
const b = (v: unknown, field: string): boolean => {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new Error(`${field} must be a boolean`);
  return v;
};

/** one line as a policy (kube's conversions from v0 and v1beta1); throws on a malformed line */
export function parsePolicy(line: string): AbacPolicy {
  const raw: unknown = JSON.parse(line);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('a policy must be a JSON object');
  const obj = raw as Record<string, unknown>;
  if (obj.apiVersion === undefined && obj.kind === undefined) {
    // v0: empty user and group mean every authenticated user; empty namespace and resource mean all
    const p: AbacPolicy = {
      user: s(obj.user, 'user'),
      group: s(obj.group, 'group'),
      readonly: b(obj.readonly, 'readonly'),
      apiGroup: '*',
      resource: s(obj.resource, 'resource') || '*',
      namespace: s(obj.namespace, 'namespace') || '*',
      nonResourcePath: '',
    };
    if (p.user === '' && p.group === '') p.group = AUTHENTICATED_GROUP;
    if (p.user === '*' || p.group === '*') Object.assign(p, { user: '', group: AUTHENTICATED_GROUP });
    if (s(obj.namespace, 'namespace') === '' && s(obj.resource, 'resource') === '') p.nonResourcePath = '*';
    return p;
  }
  if (obj.apiVersion !== V1BETA1 || obj.kind !== 'Policy') {
    throw new Error(`no kind "${s(obj.kind, 'kind')}" is registered for version "${s(obj.apiVersion, 'apiVersion')}"`);
  }
  const spec = (typeof obj.spec === 'object' && obj.spec !== null ? obj.spec : {}) as Record<string, unknown>;
  const p: AbacPolicy = {
    user: s(spec.user, 'spec.user'),
    group: s(spec.group, 'spec.group'),
    readonly: b(spec.readonly, 'spec.readonly'),
    apiGroup: s(spec.apiGroup, 'spec.apiGroup'),
    resource: s(spec.resource, 'spec.resource'),
    namespace: s(spec.namespace, 'spec.namespace'),
    nonResourcePath: s(spec.nonResourcePath, 'spec.nonResourcePath'),
  };
  if (p.user === '*' || p.group === '*') Object.assign(p, { user: '', group: AUTHENTICATED_GROUP });
  return p;
}

/** the policies of a file; a bad line is an error naming the file and line, as kube words it */
export function loadPolicyFile(file: string): AbacPolicy[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const why = fileErrorWords(err);
    throw new Error(`error reading policy file ${file}: ${why}`);
  }
  const policies: AbacPolicy[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    try {
      policies.push(parsePolicy(line));
    } catch (err) {
      throw new Error(`error reading policy file ${file}, line ${i + 1}: ${line}: ${(err as Error).message}`);
    }
  });
  return policies;
}

function subjectMatches(p: AbacPolicy, user: UserInfo | undefined): boolean {
  if (!user) return false;
  let matched = false;
  if (p.user !== '') {
    if (p.user !== '*' && p.user !== user.name) return false;
    matched = true;
  }
  if (p.group !== '') {
    if (p.group !== '*' && !user.groups.includes(p.group)) return false;
    matched = true;
  }
  return matched;
}

function requestMatches(p: AbacPolicy, a: AuthorizationAttributes): boolean {
  if (!subjectMatches(p, a.user)) return false;
  if (p.readonly && !READ_VERBS.includes(a.verb)) return false;
  if (a.resourceRequest) {
    return (p.namespace === '*' || p.namespace === (a.namespace ?? '')) && (p.resource === '*' || p.resource === a.resource) && (p.apiGroup === '*' || p.apiGroup === (a.apiGroup ?? ''));
  }
  const path = a.path ?? '';
  const np = p.nonResourcePath;
  return np === '*' || np === path || (np.endsWith('*') && path.startsWith(np.replace(/\*+$/, '')));
}

export class AbacAuthorizer implements Authorizer {
  readonly #policies: readonly AbacPolicy[];

  constructor(policies: readonly AbacPolicy[]) {
    this.#policies = [...policies];
  }

  async authorize(attributes: AuthorizationAttributes): Promise<Decision> {
    if (this.#policies.some((p) => requestMatches(p, attributes))) return { allowed: true };
    return { allowed: false, reason: 'No policy matched.' };
  }

  async rulesFor(user: UserInfo | undefined, namespace: string): Promise<RulesResult> {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    for (const p of this.#policies) {
      if (!subjectMatches(p, user)) continue;
      const verbs = p.readonly ? [...READ_VERBS] : ['*'];
      if (p.resource !== '' && (p.namespace === '*' || p.namespace === namespace)) {
        out.resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
      }
      if (p.nonResourcePath !== '') out.nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] });
    }
    return out;
  }
}
