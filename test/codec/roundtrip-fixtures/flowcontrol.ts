/** round-trip fixtures: FlowSchema and PriorityLevelConfiguration in every flowcontrol version */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';


const GROUP = 'flowcontrol.apiserver.k8s.io';
const VERSIONS = ['v1', 'v1beta3', 'v1beta2', 'v1beta1', 'v1alpha1'];

const flowSchema = (version: string) => ({
  apiVersion: `${GROUP}/${version}`,
  kind: 'FlowSchema',
  metadata: { ...fixtureMeta('batch-jobs'), generation: 2 },
  spec: {
    priorityLevelConfiguration: { name: 'workload-low' },
    matchingPrecedence: 1000,
    distinguisherMethod: { type: 'ByNamespace' },
    rules: [
      {
        subjects: [
          { kind: 'ServiceAccount', serviceAccount: { namespace: 'batch', name: '*' } },
          { kind: 'User', user: { name: 'jane' } },
          { kind: 'Group', group: { name: 'system:authenticated' } },
        ],
        resourceRules: [
          { verbs: ['get', 'list'], apiGroups: ['batch'], resources: ['jobs', 'jobs/status'], namespaces: ['batch', 'default'] },
          { verbs: ['*'], apiGroups: [''], resources: ['nodes'], clusterScope: true, namespaces: [] },
        ],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*'] }],
      },
    ],
  },
  status: { conditions: [{ type: 'Dangling', status: 'False', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'Found', message: 'the priority level exists' }] },
});

const priorityLevel = (version: string) => {
  const shares = version === 'v1' || version === 'v1beta3' ? 'nominalConcurrencyShares' : 'assuredConcurrencyShares';
  const borrowing = version === 'v1alpha1' ? {} : { lendablePercent: 0, borrowingLimitPercent: 0 };
  return {
    apiVersion: `${GROUP}/${version}`,
    kind: 'PriorityLevelConfiguration',
    metadata: { ...fixtureMeta('workload-low'), generation: 1 },
    spec: {
      type: 'Limited',
      limited: {
        [shares]: version === 'v1' ? 0 : 100,
        limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
        ...borrowing,
      },
    },
    status: { conditions: [{ type: 'ConcurrencyShared', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'Limited', message: 'shares' }] },
  };
};

const exemptLevel = (version: string) => ({
  apiVersion: `${GROUP}/${version}`,
  kind: 'PriorityLevelConfiguration',
  metadata: fixtureMeta('exempt'),
  spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
});

export const flowcontrolFixtures: Fixtures = Object.fromEntries([
  ...VERSIONS.flatMap((v) => [
    [`${GROUP}/${v}/FlowSchema`, flowSchema(v)],
    [`${GROUP}/${v}/PriorityLevelConfiguration`, priorityLevel(v)],
  ]),
  // the exempt settings (absent from v1alpha1) keep their pointer zeros too
  ...['v1', 'v1beta3', 'v1beta1'].map((v) => [`${GROUP}/${v}/PriorityLevelConfiguration (exempt)`, exemptLevel(v)]),
]);
