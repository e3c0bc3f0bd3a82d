/**
 * rbac.authorization.k8s.io v1, v1beta1 and v1alpha1: Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding. The three versions have the same shapes but for the subject's group field
 * (v1alpha1's Subject has `apiVersion` where the others have `apiGroup`). Every list is atomic, as
 * kube marks them.
 */
import type { Definitions, SchemaNode } from '../types';
import { addKind, atomic, meta, obj, ref, str } from '../dsl';

const GROUP = 'rbac.authorization.k8s.io';
const VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;

function versionDefinitions(version: (typeof VERSIONS)[number]): Definitions {
  const p = `io.k8s.api.rbac.${version}.`;
  const subjectGroup: Record<string, SchemaNode> =
    version === 'v1alpha1'
      ? { apiVersion: str('Group/version of the subject: rbac.authorization.k8s.io/v1alpha1 for users and groups, v1 for service accounts.') }
      : { apiGroup: str('API group of the subject: rbac.authorization.k8s.io for users and groups, empty for service accounts.') };
  const defs: Definitions = {
    [`${p}PolicyRule`]: obj(
      'One permission: verbs on resources of API groups, or on non-resource URLs.',
      {
        apiGroups: atomic(str(), 'API groups of the resources; "" is the core group, * any group.'),
        nonResourceURLs: atomic(str(), 'URL paths (a trailing * matches a prefix); only in cluster roles, and not with resources.'),
        resourceNames: atomic(str(), 'Object names the rule is limited to; empty means all.'),
        resources: atomic(str(), 'Resources (and resource/subresource); * means all.'),
        verbs: atomic(str(), 'Verbs allowed; * means all.'),
      },
      { required: ['verbs'] },
    ),
    [`${p}Subject`]: obj(
      'Who a binding grants to: a user, a group or a service account.',
      {
        ...subjectGroup,
        kind: str('User, Group or ServiceAccount.'),
        name: str('Name of the subject.'),
        namespace: str('Namespace of a service account; empty for users and groups.'),
      },
      { required: ['kind', 'name'], atomic: true },
    ),
    [`${p}RoleRef`]: obj(
      'The role a binding grants.',
      {
        apiGroup: str('API group of the role: rbac.authorization.k8s.io.'),
        kind: str('Role or ClusterRole.'),
        name: str('Name of the role.'),
      },
      { required: ['apiGroup', 'kind', 'name'], atomic: true },
    ),
    [`${p}AggregationRule`]: obj('Selects the cluster roles whose rules an aggregated cluster role collects.', {
      clusterRoleSelectors: atomic(ref(meta('LabelSelector')), 'Cluster roles matching any selector are aggregated.'),
    }),
  };
  const gvk = (kind: string) => ({ group: GROUP, version, kind });
  const rules = atomic(ref(`${p}PolicyRule`), 'The permissions the role grants.');
  addKind(defs, p, gvk('Role'), 'Namespaced permissions, granted by a RoleBinding.', { rules });
  addKind(defs, p, gvk('ClusterRole'), 'Cluster-wide permissions, granted by a ClusterRoleBinding or, in one namespace, a RoleBinding.', {
    aggregationRule: ref(`${p}AggregationRule`, 'When set, the rules are collected from the selected cluster roles by the controller manager.'),
    rules,
  });
  const bindingProps = (): Record<string, SchemaNode> => ({
    roleRef: ref(`${p}RoleRef`, 'The role granted; immutable.'),
    subjects: atomic(ref(`${p}Subject`), 'Who is granted the role.'),
  });
  addKind(defs, p, gvk('RoleBinding'), 'Grants a Role or ClusterRole to subjects in one namespace.', bindingProps(), ['roleRef']);
  addKind(defs, p, gvk('ClusterRoleBinding'), 'Grants a ClusterRole to subjects cluster-wide.', bindingProps(), ['roleRef']);
  return defs;
}

export const rbacDefinitions: Definitions = Object.assign({}, ...VERSIONS.map(versionDefinitions)) as Definitions;
