import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import { calculateStatus, needsPriority, podCounts } from '../../src/controllers/resourcequota/usage';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const pod = (name: string, spec: Record<string, unknown> = {}, extra: Partial<KubeObject> = {}): KubeObject => ({
  metadata: { name, ...(extra.metadata ?? {}) },
  spec: { containers: [{ name: 'c', resources: { requests: { cpu: '100m', memory: '1Gi' }, limits: { cpu: '200m' } } }], ...spec },
  ...(extra.status ? { status: extra.status } : {}),
});
const pvc = (name: string, storage: string, storageClassName?: string): KubeObject => ({
  metadata: { name }, spec: { resources: { requests: { storage } }, ...(storageClassName ? { storageClassName } : {}) },
});
const quota = (hard: Record<string, string>, spec: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'q' }, spec: { hard, ...spec } });

t.test('usage per resource, storage class, ended and expired pods', async (t) => {
  const objects: Record<string, KubeObject[]> = {
    pods: [
      pod('a'),
      pod('b', {}, { status: { phase: 'Succeeded' } }),
      pod('gone', {}, { metadata: { name: 'gone', deletionTimestamp: new Date(NOW - 60_000).toISOString(), deletionGracePeriodSeconds: 30 } }),
    ],
    persistentvolumeclaims: [pvc('x', '1Gi', 'gold'), pvc('y', '500Mi')],
  };
  const s = calculateStatus(quota({
    pods: '10', 'requests.cpu': '1', 'limits.cpu': '1', 'requests.memory': '4Gi', 'requests.storage': '10Gi', persistentvolumeclaims: '5',
    'gold.storageclass.storage.k8s.io/requests.storage': '5Gi', 'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1', 'count/widgets.example.com': '3',
  }), (k) => objects[k.resource] ?? [], NOW);
  t.same(s.used, {
    pods: '1', 'requests.cpu': '100m', 'limits.cpu': '200m', 'requests.memory': '1Gi', 'requests.storage': '1524Mi', persistentvolumeclaims: '2',
    'gold.storageclass.storage.k8s.io/requests.storage': '1Gi', 'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1', 'count/widgets.example.com': '0',
  });
  t.notOk(podCounts(objects.pods[2], NOW), 'past its grace period');
});

t.test('scopes: Terminating, BestEffort, PriorityClass selector', async (t) => {
  const pods = [pod('long'), pod('job', { activeDeadlineSeconds: 60 }), pod('be', { containers: [{ name: 'c' }] }), pod('hi', { priorityClassName: 'high' })];
  const used = (spec: Record<string, unknown>) => calculateStatus(quota({ pods: '9' }, spec), () => pods, NOW).used.pods;
  t.equal(used({ scopes: ['Terminating'] }), '1');
  t.equal(used({ scopes: ['NotTerminating'] }), '3');
  t.equal(used({ scopes: ['BestEffort'] }), '1');
  t.equal(used({ scopes: ['NotBestEffort'] }), '3');
  t.equal(used({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }), '1');
});

t.test('priority: a spec the status has not caught up with', async (t) => {
  t.ok(needsPriority(quota({ pods: '1' })));
  t.notOk(needsPriority({ ...quota({ pods: '1' }), status: { hard: { pods: '1' }, used: { pods: '0' } } }));
  t.ok(needsPriority({ ...quota({ pods: '2' }), status: { hard: { pods: '1' }, used: { pods: '0' } } }));
});
