/**
 * RoleBinding and ClusterRoleBinding in rbac.authorization.k8s.io v1, v1beta1 and v1alpha1 (stored
 * as v1), with kube's defaults (roleRef.apiGroup and subject groups), validation
 * (ValidateRoleBinding, ValidateClusterRoleBinding: roleRef kinds per binding type, roleRef
 * immutable, subjects) and table (Name, Role, Age; wide: Users, Groups, ServiceAccounts).
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { invalid, notSupported, required } from '../../validation/field-errors';
import { validatePathSegmentName } from '../../validation/names';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, isObj, objAt, str } from '../util';
import type { RbacVersion } from './conversion';
import { rbacKindBase, subjectsAsV1 } from './conversion';
import { RBAC_GROUP, defaultSubjectGroup, subjectStrings, validateSubject } from './subjects';

type BindingKind = 'RoleBinding' | 'ClusterRoleBinding';

function defaults(obj: KubeObject, version: RbacVersion): void {
  const roleRef = objAt(obj, 'roleRef');
  if (roleRef && str(roleRef.apiGroup) === '') roleRef.apiGroup = RBAC_GROUP;
  for (const s of arrAt(obj, 'subjects')) {
    if (!isObj(s)) continue;
    if (version !== 'v1alpha1') defaultSubjectGroup(s);
    else if (str(s.apiVersion) === '') {
      // v1alpha1's SetDefaults_Subject
      if (s.kind === 'ServiceAccount') s.apiVersion = 'v1';
      else if (s.kind === 'User' || s.kind === 'Group') s.apiVersion = `${RBAC_GROUP}/v1alpha1`;
    }
  }
}

/** a RoleRef as Go's %#v prints it in kube's "cannot change roleRef" error */
function formatRoleRef(ref: unknown): string {
  const r = isObj(ref) ? ref : {};
  const q = (v: unknown): string => JSON.stringify(str(v));
  return `rbac.RoleRef{APIGroup:${q(r.apiGroup)}, Kind:${q(r.kind)}, Name:${q(r.name)}}`;
}

function validate(kind: BindingKind, version: RbacVersion, obj: KubeObject, old?: KubeObject): StatusCause[] {
  const namespaced = kind === 'RoleBinding';
  const roleRef = objAt(obj, 'roleRef') ?? {};
  const causes: StatusCause[] = [];
  const group = str(roleRef.apiGroup);
  if (group !== RBAC_GROUP) causes.push(notSupported('roleRef.apiGroup', group, [RBAC_GROUP]));
  const allowed = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  const refKind = str(roleRef.kind);
  if (!allowed.includes(refKind)) causes.push(notSupported('roleRef.kind', refKind, allowed));
  const name = str(roleRef.name);
  if (name === '') causes.push(required('roleRef.name'));
  else for (const msg of validatePathSegmentName(name, false)) causes.push(invalid('roleRef.name', name, msg));
  subjectsAsV1(obj, version).forEach((s, i) => causes.push(...validateSubject(s, namespaced, `subjects[${i}]`)));
  if (old) {
    const oldRef = objAt(old, 'roleRef') ?? {};
    const same = ['apiGroup', 'kind', 'name'].every((k) => str(roleRef[k]) === str(oldRef[k]));
    if (!same && !jsonEqual(roleRef, oldRef)) {
      causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${formatRoleRef(roleRef)}: cannot change roleRef`, field: 'roleRef' });
    }
  }
  return causes;
}

function bindingTable(kind: BindingKind) {
  const of = kind === 'RoleBinding' ? 'roleBinding' : 'clusterRoleBinding';
  return {
    columns: [
      nameColumn(),
      column('Role', 'string', kind === 'RoleBinding' ? 'The Role or ClusterRole granted.' : 'The ClusterRole granted.'),
      ageColumn(),
      column('Users', 'string', `Users in the ${of}`, 1),
      column('Groups', 'string', `Groups in the ${of}`, 1),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${of}`, 1),
    ],
    cells(obj: KubeObject, now: Date): unknown[] {
      const roleRef = objAt(obj, 'roleRef') ?? {};
      const s = subjectStrings(obj.subjects);
      return [str(obj.metadata?.name), `${str(roleRef.kind)}/${str(roleRef.name)}`, age(obj, now), s.users.join(', '), s.groups.join(', '), s.serviceAccounts.join(', ')];
    },
  };
}

function bindingKind(kind: BindingKind, version: RbacVersion): KindDefinition {
  const namespaced = kind === 'RoleBinding';
  const resource = namespaced ? 'rolebindings' : 'clusterrolebindings';
  return {
    ...rbacKindBase(kind, version, resource, namespaced),
    strategy: {
      defaults: (obj) => defaults(obj, version),
      validate: (obj, old) => validate(kind, version, obj, old),
    },
    table: bindingTable(kind),
  };
}

export function bindingKinds(version: RbacVersion): KindDefinition[] {
  return [bindingKind('ClusterRoleBinding', version), bindingKind('RoleBinding', version)];
}
