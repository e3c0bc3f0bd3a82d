/**
 * Subjects of role bindings: kube's validation (ValidateRoleBindingSubject), defaults
 * (SetDefaults_Subject) and whether a subject names a user (the RBAC authorizer's appliesTo, kept
 * here for the security work). Service account users are `system:serviceaccount:<ns>:<name>`.
 */
import type { StatusCause } from '../../errors';
import { invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1123Subdomain } from '../../validation/names';
import type { UserInfo } from '../../reviews/authorizer';
import type { Obj } from '../util';
import { isObj, str } from '../util';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'] as const;

/**
 * SetDefaults_Subject of v1 and v1beta1: users and groups belong to the RBAC group (service
 * accounts get the core group "", which JSON leaves out)
 */
export function defaultSubjectGroup(subject: Obj): void {
  if (str(subject.apiGroup) !== '') return;
  if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = RBAC_GROUP;
}

/** kube's ValidateRoleBindingSubject (on the internal form, whose group field is apiGroup) */
export function validateSubject(value: unknown, namespaced: boolean, field: string): StatusCause[] {
  const subject = isObj(value) ? value : {};
  const name = str(subject.name);
  const apiGroup = str(subject.apiGroup);
  const causes: StatusCause[] = [];
  if (name === '') causes.push(required(`${field}.name`));
  switch (subject.kind) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of isDNS1123Subdomain(name)) causes.push(invalid(`${field}.name`, name, msg));
      if (apiGroup !== '') causes.push(notSupported(`${field}.apiGroup`, apiGroup, ['']));
      if (!namespaced && str(subject.namespace) === '') causes.push(required(`${field}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) causes.push(notSupported(`${field}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      causes.push(notSupported(`${field}.kind`, str(subject.kind), SUBJECT_KINDS));
  }
  return causes;
}

/**
 * whether a binding's subject names the user; `namespace` is the binding's own, which a service
 * account subject without a namespace means (kube's appliesTo)
 */
export function subjectMatches(subject: unknown, user: UserInfo, namespace: string): boolean {
  if (!isObj(subject)) return false;
  const name = str(subject.name);
  switch (subject.kind) {
    case 'User':
      return user.name === name;
    case 'Group':
      return user.groups.includes(name);
    case 'ServiceAccount': {
      const ns = str(subject.namespace) || namespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${name}`;
    }
    default:
      return false;
  }
}

/** kube's SubjectsStrings: users, groups, `namespace/name` service accounts, and the rest */
export function subjectStrings(subjects: unknown): { users: string[]; groups: string[]; serviceAccounts: string[]; others: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[], others: [] as string[] };
  for (const s of Array.isArray(subjects) ? subjects : []) {
    if (!isObj(s)) continue;
    const name = str(s.name);
    if (s.kind === 'ServiceAccount') out.serviceAccounts.push(`${str(s.namespace)}/${name}`);
    else if (s.kind === 'User') out.users.push(name);
    else if (s.kind === 'Group') out.groups.push(name);
    else out.others.push(`${str(s.kind)}/${str(s.namespace)}/${name}`);
  }
  return out;
}
