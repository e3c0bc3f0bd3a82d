/**
 * The FlowSchemas and priority levels kube-apiserver creates at start, as kube 1.32 defines them
 * (k8s.io/apiserver v0.32 pkg/apis/flowcontrol/bootstrap/default.go), in flowcontrol v1 and with
 * kube's v1 defaults applied (what kube's internalbootstrap holds). Mandatory ones: the `exempt`
 * and `catch-all` FlowSchemas and priority levels; suggested ones: the rest.
 */
import type { KubeObject } from '../../kind';
import type { Obj } from '../util';

const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';
export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

const meta = (name: string) => ({ name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } });

function level(name: string, spec: Obj): KubeObject {
  return { apiVersion: API_VERSION, kind: 'PriorityLevelConfiguration', metadata: meta(name), spec };
}

function queued(shares: number, lendable: number, queues: number, handSize: number): Obj {
  return {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares: shares,
      limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } },
      lendablePercent: lendable,
    },
  };
}

const groups = (...names: string[]) => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]) => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = (...names: string[]) => names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));

function resourceRule(verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): Obj {
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces };
}

const everything = (): Obj => ({
  resourceRules: [resourceRule(['*'], ['*'], ['*'], ['*'], true)],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
});

function schema(name: string, level: string, precedence: number, distinguisher: string, rules: Obj[]): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'FlowSchema',
    metadata: meta(name),
    spec: {
      priorityLevelConfiguration: { name: level },
      matchingPrecedence: precedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

const ALL_USERS = groups('system:unauthenticated', 'system:authenticated');

export function mandatoryPriorityLevels(): KubeObject[] {
  return [
    level('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 } }),
    level('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
  ];
}

export function mandatoryFlowSchemas(): KubeObject[] {
  return [
    schema('exempt', 'exempt', 1, '', [{ subjects: groups('system:masters'), ...everything() }]),
    schema('catch-all', 'catch-all', 10000, 'ByUser', [{ subjects: ALL_USERS, ...everything() }]),
  ];
}

export function suggestedPriorityLevels(): KubeObject[] {
  return [
    level('system', queued(30, 33, 64, 6)),
    level('node-high', queued(40, 25, 64, 6)),
    level('leader-election', queued(10, 0, 16, 4)),
    level('workload-high', queued(40, 50, 128, 6)),
    level('workload-low', queued(100, 90, 128, 6)),
    level('global-default', queued(20, 50, 128, 6)),
  ];
}

export function suggestedFlowSchemas(): KubeObject[] {
  const getCreateUpdate = ['get', 'create', 'update'];
  const leases = resourceRule(getCreateUpdate, ['coordination.k8s.io'], ['leases'], ['*'], false);
  return [
    schema('system-nodes', 'system', 500, 'ByUser', [{ subjects: groups('system:nodes'), ...everything() }]),
    schema('system-node-high', 'node-high', 400, 'ByUser', [
      {
        subjects: groups('system:nodes'),
        resourceRules: [
          resourceRule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true),
          resourceRule(['*'], ['coordination.k8s.io'], ['leases'], ['*'], false),
        ],
      },
    ]),
    schema('probes', 'exempt', 2, '', [{ subjects: ALL_USERS, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }]),
    schema('system-leader-election', 'leader-election', 100, 'ByUser', [
      { subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccounts('*')], resourceRules: [leases] },
    ]),
    schema('workload-leader-election', 'leader-election', 200, 'ByUser', [
      {
        subjects: kubeSystemServiceAccounts('*'),
        resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints', 'configmaps'], ['*'], false), leases],
      },
    ]),
    schema('endpoint-controller', 'workload-high', 150, 'ByUser', [
      {
        subjects: [...users('system:kube-controller-manager'), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
        resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints'], ['*'], false)],
      },
    ]),
    schema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', [{ subjects: users('system:kube-controller-manager'), ...everything() }]),
    schema('kube-scheduler', 'workload-high', 800, 'ByNamespace', [{ subjects: users('system:kube-scheduler'), ...everything() }]),
    schema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', [{ subjects: kubeSystemServiceAccounts('*'), ...everything() }]),
    schema('service-accounts', 'workload-low', 9000, 'ByUser', [{ subjects: groups('system:serviceaccounts'), ...everything() }]),
    schema('global-default', 'global-default', 9900, 'ByUser', [{ subjects: ALL_USERS, ...everything() }]),
  ];
}

/** the mandatory specs by kind and name, for validation (their spec is fixed) */
export function mandatorySpec(kind: 'FlowSchema' | 'PriorityLevelConfiguration', name: string): Obj | undefined {
  const list = kind === 'FlowSchema' ? mandatoryFlowSchemas() : mandatoryPriorityLevels();
  return list.find((o) => o.metadata?.name === name)?.spec as Obj | undefined;
}
