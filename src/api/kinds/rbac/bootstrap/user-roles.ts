/**
 * The user-facing cluster roles of kube 1.20's bootstrap policy (plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy policy.go): cluster-admin, discovery, basic-user, public-info-viewer, and the
 * aggregated admin / edit / view with the system:aggregate-to-* roles they collect.
 */
import type { KubeObject } from '../../../kind';
import { rule } from '../policy-rule';
import { READ, READ_WRITE, WRITE, clusterRole } from './objects';

const TO_ADMIN = { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' };
const TO_EDIT = { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' };
const TO_VIEW = { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' };

export function userRoles(): KubeObject[] {
  return [
    clusterRole('cluster-admin', [rule('*').groups('*').resources('*').build(), rule('*').urls('*').build()]),
    clusterRole('system:discovery', [
      rule('get').urls('/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*').build(),
    ]),
    // kube 1.28 added selfsubjectreviews (kubectl auth whoami); today's clients expect it
    clusterRole('system:basic-user', [
      rule('create').groups('authorization.k8s.io').resources('selfsubjectaccessreviews', 'selfsubjectrulesreviews').build(),
      rule('create').groups('authentication.k8s.io').resources('selfsubjectreviews').build(),
    ]),
    clusterRole('system:public-info-viewer', [rule('get').urls('/livez', '/readyz', '/healthz', '/version', '/version/').build()]),
    clusterRole('admin', [], { aggregateFrom: [TO_ADMIN] }),
    clusterRole('edit', [], { labels: TO_ADMIN, aggregateFrom: [TO_EDIT] }),
    clusterRole('view', [], { labels: TO_EDIT, aggregateFrom: [TO_VIEW] }),
    clusterRole(
      'system:aggregate-to-admin',
      [
        rule('create').groups('authorization.k8s.io').resources('localsubjectaccessreviews').build(),
        rule(...READ_WRITE).groups('rbac.authorization.k8s.io').resources('roles', 'rolebindings').build(),
      ],
      { labels: TO_ADMIN },
    ),
    clusterRole('system:aggregate-to-edit', editRules(), { labels: TO_EDIT }),
    clusterRole('system:aggregate-to-view', viewRules(), { labels: TO_VIEW }),
  ];
}

function editRules() {
  return [
    // reading the resources that escalate (exec, secrets, proxies)
    rule(...READ).groups('').resources('pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy').build(),
    rule('impersonate').groups('').resources('serviceaccounts').build(),
    rule(...WRITE).groups('').resources('pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward').build(),
    rule(...WRITE)
      .groups('')
      .resources('replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'endpoints', 'persistentvolumeclaims', 'configmaps', 'secrets')
      .build(),
    rule(...WRITE)
      .groups('apps')
      .resources('statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale')
      .build(),
    rule(...WRITE).groups('autoscaling').resources('horizontalpodautoscalers').build(),
    rule(...WRITE).groups('batch').resources('jobs', 'cronjobs').build(),
    rule(...WRITE)
      .groups('extensions')
      .resources('daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies')
      .build(),
    rule(...WRITE).groups('policy').resources('poddisruptionbudgets').build(),
    rule(...WRITE).groups('networking.k8s.io').resources('networkpolicies', 'ingresses').build(),
  ];
}

function viewRules() {
  return [
    rule(...READ)
      .groups('')
      .resources(
        'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status',
        'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps',
      )
      .build(),
    rule(...READ)
      .groups('')
      .resources('limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log')
      .build(),
    // reading namespaces in a namespace means reading that namespace: a hint of where one has access
    rule(...READ).groups('').resources('namespaces').build(),
    rule(...READ)
      .groups('apps')
      .resources(
        'controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status',
        'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale',
      )
      .build(),
    rule(...READ).groups('autoscaling').resources('horizontalpodautoscalers', 'horizontalpodautoscalers/status').build(),
    rule(...READ).groups('batch').resources('jobs', 'cronjobs', 'cronjobs/status', 'jobs/status').build(),
    rule(...READ)
      .groups('extensions')
      .resources(
        'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status',
        'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies',
      )
      .build(),
    rule(...READ).groups('policy').resources('poddisruptionbudgets', 'poddisruptionbudgets/status').build(),
    rule(...READ).groups('networking.k8s.io').resources('networkpolicies', 'ingresses', 'ingresses/status').build(),
  ];
}
