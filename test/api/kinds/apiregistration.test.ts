import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { create, kind } from './helpers';

const v1 = kind('apiregistration.k8s.io', 'v1', 'APIService');
const v1beta1 = kind('apiregistration.k8s.io', 'v1beta1', 'APIService');

function apiService(spec: Record<string, unknown>, name = 'v1alpha1.wardle.example.com'): KubeObject {
  return { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec };
}

const remote = (extra: Record<string, unknown> = {}) => ({
  group: 'wardle.example.com',
  version: 'v1alpha1',
  groupPriorityMinimum: 1000,
  versionPriority: 15,
  service: { namespace: 'wardle', name: 'api' },
  ...extra,
});

const messages = (causes: Array<{ field?: string; message?: string }>) => causes.map((c) => `${c.field}: ${c.message}`);

t.test('a remote registration: the port defaults to 443 and the status starts empty', async (t) => {
  const obj = apiService(remote());
  t.same(create(v1, obj), []);
  t.equal((obj.spec as { service: { port: number } }).service.port, 443);
  t.same(obj.status, {});
});

t.test('a local registration is Available at once, reason Local', async (t) => {
  const obj = apiService({ group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 }, 'v1.apps');
  t.same(create(v1beta1, obj), []);
  const [cond] = (obj.status as { conditions: Array<Record<string, string>> }).conditions;
  t.match(cond, { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
  t.match(cond.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

t.test("kube's messages for every rule", async (t) => {
  t.same(messages(create(v1, apiService(remote(), 'v1.wrong'))), [
    'metadata.name: Invalid value: "v1.wrong": must be `spec.version+"."+spec.group`: "v1alpha1.wardle.example.com"',
  ]);
  t.same(messages(create(v1, apiService({ version: 'v2', groupPriorityMinimum: 1, versionPriority: 1 }, 'v2.'))), [
    'spec.group: Required value: only v1 may have an empty group and it better be legacy kube',
  ]);
  t.same(create(v1, apiService({ version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }, 'v1.')), [], 'the legacy core registration');
  t.same(messages(create(v1, apiService(remote({ group: 'Bad_Group', version: '1x' }), '1x.Bad_Group'))).map((m) => m.split(':')[0]), [
    'spec.group',
    'spec.version',
  ]);
  t.same(messages(create(v1, apiService(remote({ groupPriorityMinimum: 0, versionPriority: 1001 })))), [
    'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000',
    'spec.versionPriority: Invalid value: 1001: must be positive and less than 1000',
  ]);
  t.same(messages(create(v1, apiService(remote({ groupPriorityMinimum: 20001, versionPriority: 0 })))), [
    'spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000',
    'spec.versionPriority: Invalid value: 0: must be positive and less than 1000',
  ]);
});

t.test('service and TLS settings', async (t) => {
  const bundle = Buffer.from('0123456789').toString('base64');
  t.same(messages(create(v1, apiService({ ...remote(), service: undefined, caBundle: bundle, insecureSkipTLSVerify: true }))), [
    'spec.caBundle: Invalid value: "10 bytes": local APIServices may not have a caBundle',
    'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
  ]);
  t.same(messages(create(v1, apiService(remote({ service: { port: 70000 }, caBundle: bundle, insecureSkipTLSVerify: true })))), [
    'spec.service.namespace: Required value',
    'spec.service.name: Required value',
    'spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
    'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
  ]);
  t.same(create(v1, apiService(remote({ insecureSkipTLSVerify: true }))), [], 'insecure without a bundle is allowed');
});

t.test('status writes: condition statuses are True, False or Unknown', async (t) => {
  const obj = apiService(remote());
  obj.status = { conditions: [{ type: 'Available', status: 'True' }, { type: 'Available', status: 'Maybe' }] };
  t.same(messages(v1.strategy.validateStatus!(obj, obj)), [
    'status.conditions[1].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"',
  ]);
});

t.test("the table: NAME SERVICE AVAILABLE AGE as kube's aggregator prints it", async (t) => {
  const table = v1.table!;
  t.same(table.columns.map((c) => c.name), ['Name', 'Service', 'Available', 'Age']);
  const now = new Date('2024-05-01T10:05:00Z');
  const meta = { creationTimestamp: '2024-05-01T10:00:00Z' };
  const local = { metadata: { name: 'v1.apps', ...meta }, spec: {}, status: { conditions: [{ type: 'Available', status: 'True', reason: 'Local' }] } };
  t.same(table.cells(local, now), ['v1.apps', 'Local', 'True', '5m']);
  const down = {
    metadata: { name: 'v1alpha1.wardle.example.com', ...meta },
    spec: { service: { namespace: 'wardle', name: 'api' } },
    status: { conditions: [{ type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck' }] },
  };
  t.same(table.cells(down, now), ['v1alpha1.wardle.example.com', 'wardle/api', 'False (FailedDiscoveryCheck)', '5m']);
  t.same(table.cells({ metadata: { name: 'x', ...meta }, spec: { service: { namespace: 'a', name: 'b' } } }, now)[2], 'Unknown');
});

t.test('v1beta1 and v1 share one storage location, stored as v1', async (t) => {
  t.same(v1beta1.storage, v1.storage);
  const stored = v1beta1.toStorage!(apiService(remote()));
  t.equal(stored.apiVersion, 'apiregistration.k8s.io/v1');
  t.equal(v1beta1.fromStorage!(stored).apiVersion, 'apiregistration.k8s.io/v1beta1');
});
