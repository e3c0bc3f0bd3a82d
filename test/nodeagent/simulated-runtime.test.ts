/**
 * The simulated runtime's moving parts against an in-memory fake of the API: the pod simulator
 * (status writes through pods/status with the resourceVersion seen, conflicts, deletion with grace
 * 0 and the uid precondition, a Job's pod completing after its duration, pods of other nodes left
 * alone) and the node fleet (registration with a fixed capacity, leases once the Node exists, the
 * concurrency bound, status over the informer's copy without a GET per period).
 */
import pino from 'pino';
import t from 'tap';
import { ApiError } from '../../src/client/errors';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject, ResourceRef } from '../../src/client/types';
import type { NodeObject } from '../../src/nodeagent/node/setters';
import { NodeFleet } from '../../src/nodeagent/runtimes/simulated/node-fleet';
import { PodSimulator } from '../../src/nodeagent/runtimes/simulated/pod-simulator';
import type { Pod } from '../../src/nodeagent/types';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Call {
  verb: string;
  resource: string;
  name: string;
  body?: Obj;
  opts?: Obj;
}

/** the verbs the simulator uses, over a map; `delay` holds every answer back that long */
class FakeApi {
  readonly calls: Call[] = [];
  readonly objects = new Map<string, Obj>();
  #rv = 1;
  inFlight = 0;
  maxInFlight = 0;
  delayMs = 0;
  /** an error for the next call of `verb resource` */
  readonly failNext = new Map<string, ApiError>();

  key(resource: string, namespace: string | undefined, name: string): string {
    return `${resource}/${namespace ?? ''}/${name}`;
  }

  async #answer<T>(call: Call, fn: () => T): Promise<T> {
    this.calls.push(call);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      const err = this.failNext.get(`${call.verb} ${call.resource}`);
      if (err) {
        this.failNext.delete(`${call.verb} ${call.resource}`);
        throw err;
      }
      return fn();
    } finally {
      this.inFlight--;
    }
  }

  client(): RestClient {
    const api = this;
    const notFound = (name: string) => new ApiError(404, { kind: 'Status', reason: 'NotFound', message: `${name} not found` });
    return {
      get: (ref: ResourceRef, ns: string | undefined, name: string) =>
        this.#answer({ verb: 'get', resource: ref.resource, name }, () => {
          const o = api.objects.get(api.key(ref.resource, ns, name));
          if (!o) throw notFound(name);
          return structuredClone(o);
        }),
      create: (ref: ResourceRef, ns: string | undefined, obj: KubeObject) =>
        this.#answer({ verb: 'create', resource: ref.resource, name: obj.metadata?.name ?? '', body: obj as Obj }, () => {
          const k = api.key(ref.resource, ns, obj.metadata?.name ?? '');
          if (api.objects.has(k)) throw new ApiError(409, { kind: 'Status', reason: 'AlreadyExists' });
          const stored = { ...structuredClone(obj), metadata: { ...obj.metadata, namespace: ns, uid: `uid-${obj.metadata?.name}`, resourceVersion: String(++api.#rv) } };
          api.objects.set(k, stored);
          return structuredClone(stored);
        }),
      update: (ref: ResourceRef, obj: KubeObject, subresource?: string) =>
        this.#answer({ verb: subresource ? `update/${subresource}` : 'update', resource: ref.resource, name: obj.metadata?.name ?? '', body: obj as Obj }, () => {
          const k = api.key(ref.resource, obj.metadata?.namespace, obj.metadata?.name ?? '');
          const current = api.objects.get(k);
          if (!current) throw notFound(obj.metadata?.name ?? '');
          if (obj.metadata?.resourceVersion && obj.metadata.resourceVersion !== current.metadata.resourceVersion) throw new ApiError(409, { kind: 'Status', reason: 'Conflict' });
          const stored = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++api.#rv) } };
          api.objects.set(k, stored);
          return structuredClone(stored);
        }),
      patch: (ref: ResourceRef, ns: string | undefined, name: string, _type: string, patch: Obj, opts: Obj) =>
        this.#answer({ verb: opts?.subresource ? `patch/${opts.subresource}` : 'patch', resource: ref.resource, name, body: patch }, () => {
          const o = api.objects.get(api.key(ref.resource, ns, name));
          if (!o) throw notFound(name);
          return structuredClone(o);
        }),
      delete: (ref: ResourceRef, ns: string | undefined, name: string, opts: Obj) =>
        this.#answer({ verb: 'delete', resource: ref.resource, name, opts }, () => {
          const k = api.key(ref.resource, ns, name);
          if (!api.objects.delete(k)) throw notFound(name);
          return {};
        }),
    } as unknown as RestClient;
  }

  count(verb: string, resource: string): number {
    return this.calls.filter((c) => c.verb === verb && c.resource === resource).length;
  }
}

const logger = pino({ level: 'silent' });
const NOW = Date.parse('2026-11-24T20:00:00Z');

async function until(what: string, fn: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function simulator(api: FakeApi, now = () => NOW) {
  const sim = new PodSimulator({
    client: api.client(),
    nodes: { has: (n) => n.startsWith('sim-'), hostIP: () => '172.16.0.1', podCidr: () => '10.244.3.0/24' },
    logger,
    jobPodDurationMs: 1000,
    now: () => now(),
  });
  const add = (pod: Obj): Pod => {
    const stored = { apiVersion: 'v1', kind: 'Pod', ...pod, metadata: { namespace: 'default', resourceVersion: '5', uid: `uid-${pod.metadata.name}`, ...pod.metadata } };
    api.objects.set(api.key('pods', 'default', stored.metadata.name), structuredClone(stored));
    sim.informer.store.upsert(stored as Pod);
    return stored as Pod;
  };
  return { sim, add };
}

t.test('pods: a Pending pod on our node is written Running through pods/status', async (t) => {
  const api = new FakeApi();
  const { sim, add } = simulator(api);
  add({ metadata: { name: 'web' }, spec: { nodeName: 'sim-3', containers: [{ name: 'c', image: 'nginx' }] }, status: { phase: 'Pending' } });
  await sim.sync('default/web');
  const [call] = api.calls;
  t.equal(call.verb, 'update/status', 'the status subresource');
  t.equal(call.body?.metadata.resourceVersion, '5', 'carrying the resourceVersion the informer saw');
  t.equal(call.body?.status.phase, 'Running');
  t.equal(call.body?.status.podIP, '10.244.3.2', "from the node's pod CIDR");
  t.equal(call.body?.status.hostIP, '172.16.0.1');
  t.equal(sim.counts.ready, 1);
});

t.test("pods: other nodes' pods and unbound pods are left alone", async (t) => {
  const api = new FakeApi();
  const { sim, add } = simulator(api);
  add({ metadata: { name: 'elsewhere' }, spec: { nodeName: 'real-node', containers: [] }, status: { phase: 'Pending' } });
  add({ metadata: { name: 'unbound' }, spec: { containers: [] }, status: { phase: 'Pending' } });
  await sim.sync('default/elsewhere');
  await sim.sync('default/unbound');
  await sim.sync('default/missing');
  t.equal(api.calls.length, 0);
});

t.test('pods: a conflict waits for the newer copy', async (t) => {
  const api = new FakeApi();
  const { sim, add } = simulator(api);
  add({ metadata: { name: 'web' }, spec: { nodeName: 'sim-0', containers: [{ name: 'c' }] }, status: { phase: 'Pending' } });
  api.failNext.set('update/status pods', new ApiError(409, { kind: 'Status', reason: 'Conflict' }));
  await sim.sync('default/web');
  t.equal(sim.counts.conflicts, 1, 'counted, not thrown (no retry with backoff)');
  t.equal(sim.counts.ready, 0);
});

t.test('pods: a deleted pod is removed at once, grace 0, uid precondition; its address is freed', async (t) => {
  const api = new FakeApi();
  const { sim, add } = simulator(api);
  add({ metadata: { name: 'a' }, spec: { nodeName: 'sim-0', containers: [{ name: 'c' }] }, status: { phase: 'Pending' } });
  await sim.sync('default/a');
  const ip = api.calls[0].body?.status.podIP;
  sim.informer.store.upsert({ ...(api.calls[0].body as Pod), metadata: { ...api.calls[0].body?.metadata, deletionTimestamp: '2026-11-24T20:00:01Z' } });
  await sim.sync('default/a');
  const del = api.calls[1];
  t.equal(del.verb, 'delete');
  t.same(del.opts, { gracePeriodSeconds: 0, preconditions: { uid: 'uid-a' } });
  add({ metadata: { name: 'b' }, spec: { nodeName: 'sim-0', containers: [{ name: 'c' }] }, status: { phase: 'Pending' } });
  await sim.sync('default/b');
  t.equal(api.calls[2].body?.status.podIP, '10.244.3.3', 'the next address is taken (host-local goes round the range)');
  t.not(api.calls[2].body?.status.podIP, undefined);
  t.ok(ip);
  // a second deletion finds it gone: not an error
  sim.informer.store.upsert({ ...(api.calls[0].body as Pod), metadata: { ...api.calls[0].body?.metadata, deletionTimestamp: 'x' } });
  await t.resolves(sim.sync('default/a'));
  t.equal(sim.counts.delete, 1);
});

t.test("pods: a Job's pod Succeeds once its duration has passed", async (t) => {
  const api = new FakeApi();
  let now = NOW;
  const { sim, add } = simulator(api, () => now);
  const owner = [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'j1' }];
  add({ metadata: { name: 'j-1', ownerReferences: owner }, spec: { nodeName: 'sim-1', restartPolicy: 'Never', containers: [{ name: 'c' }] }, status: { phase: 'Pending' } });
  await sim.sync('default/j-1');
  const running = api.calls[0].body as Pod;
  t.equal((running.status as Obj).phase, 'Running', 'first Running');
  sim.informer.store.upsert(api.objects.get(api.key('pods', 'default', 'j-1')) as Pod);
  now = NOW + 300;
  await sim.sync('default/j-1');
  t.equal(api.calls.length, 1, 'not yet: it runs for its duration');
  now = NOW + 1000;
  await sim.sync('default/j-1');
  t.equal(api.calls.length, 2);
  const done = api.calls[1].body?.status;
  t.equal(done.phase, 'Succeeded');
  t.match(done.containerStatuses[0].state.terminated, { exitCode: 0, reason: 'Completed' });
  t.equal(sim.counts.complete, 1);
});

function fleet(api: FakeApi, names: string[], opts: { concurrency?: number; lookup?: boolean; now?: () => number } = {}) {
  return new NodeFleet({
    client: api.client(),
    nodes: names.map((name, i) => ({ name, address: `172.16.0.${i + 1}` })),
    config: { maxPods: 50, nodeStatusUpdateFrequencyMs: 60_000, nodeStatusReportFrequencyMs: 300_000, nodeLeaseDurationSeconds: 40 },
    agentVersion: 'v1.32.0+ballast.test',
    runtimeVersion: 'simulated://test',
    logger,
    concurrency: opts.concurrency,
    now: opts.now,
    nodeLookup: opts.lookup ? (name) => api.objects.get(api.key('nodes', undefined, name)) as NodeObject | undefined : undefined,
  });
}

t.test('fleet: nodes register with fixed capacity, then their leases are created', async (t) => {
  const api = new FakeApi();
  const f = fleet(api, ['sim-0', 'sim-1', 'sim-2']);
  t.teardown(() => f.stop());
  f.tick();
  await until('3 nodes registered', () => f.registered === 3);
  t.equal(api.count('create', 'leases'), 0, 'no lease before its Node exists');
  const node = api.objects.get(api.key('nodes', undefined, 'sim-1'))!;
  t.equal(node.status.capacity.cpu, '32');
  t.equal(node.status.capacity.memory, '256Gi');
  t.equal(node.status.capacity.pods, '50', '--max-pods');
  t.equal(node.status.nodeInfo.containerRuntimeVersion, 'simulated://test');
  t.equal(node.status.nodeInfo.kubeletVersion, 'v1.32.0+ballast.test');
  t.same(node.status.addresses, [{ type: 'InternalIP', address: '172.16.0.2' }, { type: 'Hostname', address: 'sim-1' }]);
  t.match((node.status.conditions as Obj[]).find((c) => c.type === 'Ready'), { status: 'True', reason: 'KubeletReady' });
  f.tick();
  await until('3 leases', () => api.count('create', 'leases') === 3);
  const lease = api.objects.get(api.key('leases', 'kube-node-lease', 'sim-2'))!;
  t.equal(lease.spec.holderIdentity, 'sim-2');
  t.same(lease.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'sim-2', uid: 'uid-sim-2' }]);
});

t.test('fleet: at most `concurrency` nodes in flight', async (t) => {
  const api = new FakeApi();
  api.delayMs = 20;
  const f = fleet(api, Array.from({ length: 12 }, (_, i) => `sim-${i}`), { concurrency: 3 });
  t.teardown(() => f.stop());
  f.start();
  await until('12 nodes registered', () => f.registered === 12);
  t.ok(api.maxInFlight <= 3, `at most 3 requests at once (saw ${api.maxInFlight})`);
});

t.test("fleet: a registered node's status is computed over the informer's copy, without a GET", async (t) => {
  const api = new FakeApi();
  let clock = NOW;
  const f = fleet(api, ['sim-0'], { lookup: true, now: () => clock });
  t.teardown(() => f.stop());
  f.tick();
  await until('registered', () => f.registered === 1 && f.counts.statusSyncs === 1);
  f.tick();
  await until('the lease', () => api.count('create', 'leases') === 1);
  const gets = api.count('get', 'nodes');
  const patches = api.count('patch/status', 'nodes');
  clock += 65_000;
  f.tick();
  await until('a second status sync', () => f.counts.statusSyncs === 2 && f.counts.leaseRenewals === 2);
  t.equal(api.count('get', 'nodes'), gets, 'no GET for a status period (nor for the lease renewal)');
  t.equal(api.count('patch/status', 'nodes'), patches, 'nothing changed and no report is due: no patch');
  t.equal(api.count('update', 'leases'), 1, 'the lease renewed by an update');
  clock += 300_000;
  f.tick();
  await until('a third status sync', () => f.counts.statusSyncs === 3);
  t.equal(api.count('patch/status', 'nodes'), patches + 1, 'a report is due: the status is patched');
  t.equal(api.count('get', 'nodes'), gets, 'still without a GET');
});

t.test('fleet: a new Node is created with its status in one request; an existing one is reconciled', async (t) => {
  const api = new FakeApi();
  api.objects.set(api.key('nodes', undefined, 'sim-1'), { apiVersion: 'v1', kind: 'Node', metadata: { name: 'sim-1', uid: 'old', resourceVersion: '1', labels: { 'kubernetes.io/hostname': 'stale' } }, status: {} });
  const f = fleet(api, ['sim-0', 'sim-1']);
  t.teardown(() => f.stop());
  f.tick();
  await until('both registered', () => f.registered === 2);
  const forNode = (name: string, verb: string) => api.calls.filter((c) => c.resource === 'nodes' && c.name === name && c.verb === verb).length;
  t.equal(forNode('sim-0', 'create'), 1);
  t.equal(forNode('sim-0', 'get') + forNode('sim-0', 'patch/status'), 0, 'no read-back and patch after a create that carried the status');
  t.ok(forNode('sim-1', 'get') >= 1, 'the existing Node is read');
  t.ok(forNode('sim-1', 'patch/status') >= 1, 'and patched (labels, status)');
});

t.test('fleet: a failed registration is retried', async (t) => {
  const api = new FakeApi();
  api.failNext.set('create nodes', new ApiError(500, { kind: 'Status', reason: 'InternalError' }));
  const f = fleet(api, ['sim-0']);
  t.teardown(() => f.stop());
  f.start();
  await until('registered after a retry', () => f.registered === 1);
  t.equal(api.count('create', 'nodes'), 2);
});

t.test('fleet: ticks take turns over the nodes, so later nodes are not starved', async (t) => {
  const api = new FakeApi();
  api.delayMs = 30;
  const f = fleet(api, ['sim-0', 'sim-1', 'sim-2', 'sim-3'], { concurrency: 1 });
  t.teardown(() => f.stop());
  const order: string[] = [];
  for (let i = 0; i < 4; i++) {
    f.tick();
    await until(`registration ${i + 1}`, () => f.registered === i + 1);
    order.push(api.calls.filter((c) => c.verb === 'create' && c.resource === 'nodes').at(-1)!.name);
  }
  t.same(order, ['sim-0', 'sim-1', 'sim-2', 'sim-3']);
});
