/**
 * The retry rules, with a scripted client: registration tries again with back-off until the Node
 * is created, a status update makes 5 tries and then waits for the next tick, and the lease
 * controller backs off while it cannot read or create its lease, updates the last lease without
 * reading it, and reads it again after a conflict.
 */
import pino from 'pino';
import t from 'tap';
import { ApiError } from '../../src/client/errors';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject, ResourceRef } from '../../src/client/types';
import { NodeLease } from '../../src/nodeagent/node/lease';
import { NODE_STATUS_UPDATE_RETRY, NodeStatusAgent } from '../../src/nodeagent/node/node-status-agent';
import type { NodeHost } from '../../src/nodeagent/node/host';
import type { NodeObject } from '../../src/nodeagent/node/setters';

const logger = pino({ level: 'silent' });
const fail = (code: number, reason: string) => new ApiError(code, { kind: 'Status', code, reason, message: reason });

/** a client whose answers a test scripts per verb and resource */
function scriptedClient(script: Partial<Record<string, (obj?: KubeObject) => KubeObject | Error>>) {
  const calls: string[] = [];
  const answer = (key: string, obj?: KubeObject) => {
    calls.push(key);
    const fn = script[key];
    if (!fn) throw new Error(`unexpected ${key}`);
    const out = fn(obj);
    if (out instanceof Error) throw out;
    return out;
  };
  const client = {
    get: async (ref: ResourceRef) => answer(`get ${ref.resource}`),
    create: async (ref: ResourceRef, _ns: string | undefined, obj: KubeObject) => answer(`create ${ref.resource}`, obj),
    update: async (ref: ResourceRef, obj: KubeObject) => answer(`update ${ref.resource}`, obj),
    patch: async (ref: ResourceRef) => answer(`patch ${ref.resource}`),
  };
  return { client: client as unknown as RestClient, calls };
}

const host: NodeHost = {
  machineInfo: async () => ({ numCores: 2, memoryCapacityBytes: 2 ** 32, hugePages: [], machineId: 'm', systemUuid: 's', bootId: 'b', kernelVersion: 'k', osImage: 'o', operatingSystem: 'linux', architecture: 'amd64' }),
  rootFs: async () => ({ capacityBytes: 2 ** 34, availableBytes: 2 ** 33, inodes: 100, inodesFree: 50 }),
  measure: async () => ({ time: Date.now(), memoryCapacityBytes: 2 ** 32, memoryWorkingSetBytes: 2 ** 30, nodefs: { capacityBytes: 2 ** 34, availableBytes: 2 ** 33, inodes: 100, inodesFree: 50 }, imagefs: { capacityBytes: 2 ** 34, availableBytes: 2 ** 33, inodes: 100, inodesFree: 50 }, maxPid: 1000, numProcesses: 10 }),
  nodeAddress: async () => '10.0.0.1',
};

function agent(client: RestClient) {
  return new NodeStatusAgent({
    client,
    nodeName: 'n',
    config: {},
    host,
    runtime: { version: async () => 'fake://1', status: async () => ({ runtimeReady: true, networkReady: true, message: '' }) },
    images: { listImages: async () => [] },
    agentVersion: 'v1.32.0',
    logger,
    registrationBackoffMs: 1,
  });
}

t.test('registration tries again until the Node is created', async (t) => {
  let creates = 0;
  const node = { metadata: { name: 'n', uid: 'u1' }, status: {} };
  const { client, calls } = scriptedClient({
    'create nodes': () => (++creates < 4 ? fail(500, 'InternalError') : node),
    'get nodes': () => structuredClone(node),
    'patch nodes': () => node,
  });
  const a = agent(client);
  await a.syncNodeStatus();
  t.ok(a.registered);
  t.equal(calls.filter((c) => c === 'create nodes').length, 4);
  t.same(calls.slice(-2), ['get nodes', 'patch nodes'], 'then the status update');
});

t.test('a status update makes 5 tries, then waits for the next tick', async (t) => {
  const { client, calls } = scriptedClient({
    'create nodes': () => fail(409, 'AlreadyExists'),
    'get nodes': () => (calls.length <= 2 ? { metadata: { name: 'n', uid: 'u1' }, status: {} } : fail(503, 'ServiceUnavailable')),
    'patch nodes': () => ({ metadata: { name: 'n' } }),
  });
  const a = agent(client);
  await a.syncNodeStatus();
  t.ok(a.registered, 'an existing node counts as registered');
  t.equal(calls.filter((c) => c === 'get nodes').length, 1 + NODE_STATUS_UPDATE_RETRY);
  await a.syncNodeStatus();
  t.equal(calls.filter((c) => c === 'get nodes').length, 1 + 2 * NODE_STATUS_UPDATE_RETRY, 'the next sync tries again');
});

t.test('the lease: back-off while it cannot be read, created with its owner, then updated directly', async (t) => {
  let leaseGets = 0;
  let updates = 0;
  const { client, calls } = scriptedClient({
    'get leases': () => (++leaseGets <= 2 ? fail(500, 'InternalError') : leaseGets === 3 ? fail(404, 'NotFound') : { metadata: { name: 'n', namespace: 'kube-node-lease', resourceVersion: '9' }, spec: {} }),
    'get nodes': () => ({ metadata: { name: 'n', uid: 'node-uid' } }),
    'create leases': (obj) => ({ ...obj!, metadata: { ...obj!.metadata, resourceVersion: '1' } }),
    'update leases': (obj) => (++updates === 2 ? fail(409, 'Conflict') : { ...obj!, metadata: { ...obj!.metadata, resourceVersion: String(10 + updates) } }),
  });
  const lease = new NodeLease({ client, nodeName: 'n', leaseDurationSeconds: 40, logger, initialBackoffMs: 1 });
  t.equal(lease.renewIntervalMs, 10_000);
  await lease.sync();
  t.same(calls, ['get leases', 'get leases', 'get leases', 'get nodes', 'create leases']);
  t.same(lease.latest?.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'node-uid' }]);
  t.equal(lease.latest?.spec?.holderIdentity, 'n');
  t.equal(lease.latest?.spec?.leaseDurationSeconds, 40);
  calls.length = 0;
  await lease.sync();
  t.same(calls, ['update leases'], 'no read before a renewal');
  calls.length = 0;
  await lease.sync();
  t.same(calls, ['update leases', 'get leases', 'get nodes', 'update leases'], 'a conflict reads the lease again');
});

t.test('Ready follows the runtime checks: not yet checked, ready, down after 30 s; a new boot id is an event', async (t) => {
  let now = 1_000_000;
  let answering = true;
  const events: string[] = [];
  const machine = await host.machineInfo();
  const a = new NodeStatusAgent({
    client: scriptedClient({}).client,
    nodeName: 'n',
    config: {},
    host: { ...host, machineInfo: async () => ({ ...machine }) },
    runtime: {
      version: async () => 'fake://1',
      status: async () => {
        if (!answering) throw new Error('connection refused');
        return { runtimeReady: true, networkReady: true, message: '' };
      },
    },
    images: { listImages: async () => [] },
    agentVersion: 'v1.32.0',
    logger,
    clock: { now: () => now },
    recordEvent: (type, reason, message) => void events.push(`${type} ${reason}${message ? `: ${message}` : ''}`),
  });
  const node: NodeObject = { metadata: { name: 'n' }, status: { nodeInfo: { bootID: 'old-boot' } } };
  await a.setNodeStatus(node);
  const ready = () => node.status?.conditions?.find((c) => c.type === 'Ready');
  t.match(ready(), { status: 'False', message: 'container runtime status check may not have completed yet' });
  t.same(events.filter((e) => e.startsWith('Warning')), ['Warning Rebooted: Node n has been rebooted, boot id: b']);
  await a.updateRuntimeState();
  await a.setNodeStatus(node);
  t.match(ready(), { status: 'True', message: 'kubelet is posting ready status' });
  answering = false;
  now += 31_000;
  await a.updateRuntimeState();
  await a.setNodeStatus(node);
  t.match(ready(), { status: 'False', message: 'container runtime is down' });
  t.ok(events.includes('Normal NodeReady') && events.includes('Normal NodeNotReady'));
});
