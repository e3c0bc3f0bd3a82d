/** round-trip fixtures of rbac.authorization.k8s.io v1, v1beta1 and v1alpha1 */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';


const GROUP = 'rbac.authorization.k8s.io';

function versionFixtures(version: 'v1' | 'v1beta1' | 'v1alpha1'): Fixtures {
  const apiVersion = `${GROUP}/${version}`;
  const subjects =
    version === 'v1alpha1'
      ? [
          { kind: 'User', apiVersion: `${GROUP}/v1alpha1`, name: 'jane' },
          { kind: 'Group', apiVersion: `${GROUP}/v1alpha1`, name: 'devs' },
          { kind: 'ServiceAccount', apiVersion: 'v1', name: 'builder', namespace: 'ci' },
        ]
      : [
          { kind: 'User', apiGroup: GROUP, name: 'jane' },
          { kind: 'Group', apiGroup: GROUP, name: 'devs' },
          { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
        ];
  const rules = [
    { verbs: ['get', 'list', 'watch'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments/scale'], resourceNames: ['web'] },
    { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*'] },
  ];
  return {
    [`${apiVersion}/ClusterRole`]: {
      apiVersion,
      kind: 'ClusterRole',
      metadata: fixtureMeta('monitoring'),
      rules,
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } },
          { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
        ],
      },
    },
    [`${apiVersion}/Role`]: { apiVersion, kind: 'Role', metadata: fixtureMeta('pod-reader', 'shop'), rules: [rules[0]] },
    [`${apiVersion}/ClusterRoleBinding`]: {
      apiVersion,
      kind: 'ClusterRoleBinding',
      metadata: fixtureMeta('monitoring'),
      subjects,
      roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: 'monitoring' },
    },
    [`${apiVersion}/RoleBinding`]: {
      apiVersion,
      kind: 'RoleBinding',
      metadata: fixtureMeta('read-pods', 'shop'),
      subjects,
      roleRef: { apiGroup: GROUP, kind: 'Role', name: 'pod-reader' },
    },
  };
}

export const rbacFixtures: Fixtures = { ...versionFixtures('v1'), ...versionFixtures('v1beta1'), ...versionFixtures('v1alpha1') };
