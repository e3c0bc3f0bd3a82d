/**
 * kube's validation of a webhook's rules (validateRuleWithOperations, validateRule,
 * validateResources): operations, API groups and versions with `*` alone, resources with their
 * `*`, `x/*`, `*\/x` and `*\/*` combinations, and the scope.
 */
import type { StatusCause } from '../../errors';
import { invalid, notSupported, required } from '../../validation/field-errors';
import { arrAt, isObj, str } from '../util';

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

const strings = (v: unknown[]): string[] => v.map(str);

/** a []OperationType as Go's %#v prints it */
function formatOperations(ops: string[]): string {
  return `[]admissionregistration.OperationType{${ops.map((o) => JSON.stringify(o)).join(', ')}}`;
}

export function validateResources(resources: string[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (resources.length === 0) causes.push(required(field));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSubresource = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      causes.push(required(`${field}[${i}]`));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      // kube keeps only the last plain entry's verdict here
      withoutSubresource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) causes.push(invalid(`${field}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) causes.push(invalid(`${field}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) causes.push(invalid(field, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSubresource) causes.push(invalid(field, resources, "if '*' is present, must not specify other resources without subresources"));
  return causes;
}

export function validateRuleWithOperations(value: unknown, field: string): StatusCause[] {
  const r = isObj(value) ? value : {};
  const causes: StatusCause[] = [];
  const ops = strings(arrAt(r, 'operations'));
  if (ops.length === 0) causes.push(required(`${field}.operations`));
  if (ops.length > 1 && ops.includes('*')) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${formatOperations(ops)}: if '*' is present, must not specify other operations`, field: `${field}.operations` });
  }
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) causes.push(notSupported(`${field}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = strings(arrAt(r, 'apiGroups'));
  if (groups.length === 0) causes.push(required(`${field}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) causes.push(invalid(`${field}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = strings(arrAt(r, 'apiVersions'));
  if (versions.length === 0) causes.push(required(`${field}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) causes.push(invalid(`${field}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') causes.push(required(`${field}.apiVersions[${i}]`));
  });
  causes.push(...validateResources(strings(arrAt(r, 'resources')), `${field}.resources`));
  if (r.scope !== undefined && r.scope !== null && !SCOPES.includes(str(r.scope))) causes.push(notSupported(`${field}.scope`, r.scope, SCOPES));
  return causes;
}
