/**
 * NodeStatusAgent against the real API server (test/e2e/harness.ts) with a fake host and runtime:
 * registration (labels, taints, annotation), the status it posts, conditions following the
 * measurements and the runtime, posting only on change, the lease, re-registration of an existing
 * Node, and stop.
 */
import pino from 'pino';
import t from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RESOURCES } from '../../src/client/resources';
import { RestClient } from '../../src/client/rest-client';
import type { FsStats, HostMeasurements, MachineInfo, NodeHost } from '../../src/nodeagent/node/host';
import { NodeStatusAgent, type NodeStatusConfig } from '../../src/nodeagent/node/node-status-agent';
import type { LeaseObject } from '../../src/nodeagent/node/lease';
import type { NodeObject } from '../../src/nodeagent/node/setters';
import { versionInfo } from '../../src/server/version';
import { startApiServer, waitFor } from '../e2e/harness';

const GiB = 2 ** 30;

class FakeHost implements NodeHost {
  machine: MachineInfo = {
    numCores: 4,
    memoryCapacityBytes: 8 * GiB,
    hugePages: [{ pageSizeKiB: 2048, numPages: 0 }],
    machineId: 'machine-1',
    systemUuid: 'uuid-1',
    bootId: 'boot-1',
    kernelVersion: '6.1.0-test',
    osImage: 'Debian GNU/Linux 12 (bookworm)',
    operatingSystem: 'linux',
    architecture: 'amd64',
  };
  fs: FsStats = { capacityBytes: 100 * GiB, availableBytes: 60 * GiB, inodes: 1_000_000, inodesFree: 900_000 };
  workingSet = 2 * GiB;
  processes = 200;
  async machineInfo() {
    return structuredClone(this.machine);
  }
  async rootFs() {
    return { ...this.fs };
  }
  async measure(): Promise<HostMeasurements> {
    return { time: Date.now(), memoryCapacityBytes: this.machine.memoryCapacityBytes, memoryWorkingSetBytes: this.workingSet, nodefs: { ...this.fs }, imagefs: { ...this.fs }, maxPid: 4_194_304, numProcesses: this.processes };
  }
  async nodeAddress() {
    return '10.1.2.3';
  }
}

class FakeRuntime {
  state = { runtimeReady: true, networkReady: true, message: '' };
  async version() {
    return 'containerd://1.6.20';
  }
  async status() {
    return { ...this.state };
  }
}

const images = {
  async listImages() {
    return [
      { id: 'sha256:p', repoTags: ['registry.k8s.io/pause:3.9'], repoDigests: [], size: '300000' },
      { id: 'sha256:b', repoTags: ['docker.io/library/busybox:latest'], repoDigests: ['docker.io/library/busybox@sha256:abc'], size: '1400000' },
    ] as never;
  },
};

const FAST: NodeStatusConfig = {
  nodeStatusUpdateFrequencyMs: 200,
  nodeStatusReportFrequencyMs: 60_000,
  nodeLeaseDurationSeconds: 1,
  evictionPressureTransitionPeriodMs: 600,
};

t.test('node agent against the API server', async (t) => {
  const server = await startApiServer(t);
  const client = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'ballast-test-nodeagent' }), { qps: -1 });
  t.teardown(() => client.close());
  const logger = pino({ level: process.env.BALLAST_TEST_LOG ? 'debug' : 'silent' });

  const start = (nodeName: string, config: NodeStatusConfig, host = new FakeHost(), runtime = new FakeRuntime()) => {
    const events: string[] = [];
    const agent = new NodeStatusAgent({
      client,
      nodeName,
      config: { ...FAST, ...config },
      host,
      runtime,
      images,
      agentVersion: versionInfo().gitVersion,
      logger,
      runtimeSyncPeriodMs: 100,
      registrationBackoffMs: 10,
      recordEvent: (_type, reason) => void events.push(reason),
    });
    agent.start();
    t.teardown(() => agent.stop());
    return { agent, host, runtime, events };
  };
  const getNode = async (name: string) => (await client.get(RESOURCES.nodes, undefined, name)) as unknown as NodeObject;
  const condition = (node: NodeObject, type: string) => node.status?.conditions?.find((c) => c.type === type);

  await t.test('registers the node with labels, taints, annotation and a full status', async (t) => {
    start('node-a', {
      nodeLabels: { 'node-role.kubernetes.io/worker': '', team: 'blue' },
      registerWithTaints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }],
      kubeReserved: { cpu: '500m', memory: '512Mi' },
      systemReserved: { memory: '512Mi' },
      evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%' },
      maxPods: 50,
    });
    const node = await waitFor('node-a Ready', async () => {
      const n = await getNode('node-a');
      return condition(n, 'Ready')?.status === 'True' ? n : undefined;
    });
    t.match(node.metadata.labels, {
      'kubernetes.io/hostname': 'node-a',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'beta.kubernetes.io/arch': 'amd64',
      'node-role.kubernetes.io/worker': '',
      team: 'blue',
    });
    t.notOk(node.metadata.labels?.['node.kubernetes.io/instance-type'], 'no instance type without a cloud provider');
    t.equal(node.metadata.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach'], 'true');
    t.match(node.spec?.taints, [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }]);
    const status = node.status!;
    t.same(status.addresses, [{ type: 'InternalIP', address: '10.1.2.3' }, { type: 'Hostname', address: 'node-a' }]);
    t.same(status.capacity, { cpu: '4', memory: '8Gi', pods: '50', 'ephemeral-storage': '100Gi', 'hugepages-2Mi': '0' });
    t.same(status.allocatable, { cpu: '3500m', memory: `${8192 - 1024 - 100}Mi`, pods: '50', 'ephemeral-storage': '90Gi', 'hugepages-2Mi': '0' });
    t.match(status.nodeInfo, {
      machineID: 'machine-1',
      systemUUID: 'uuid-1',
      bootID: 'boot-1',
      kernelVersion: '6.1.0-test',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      containerRuntimeVersion: 'containerd://1.6.20',
      kubeletVersion: versionInfo().gitVersion,
      kubeProxyVersion: versionInfo().gitVersion,
      operatingSystem: 'linux',
      architecture: 'amd64',
    });
    t.same(status.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
    t.same(status.images, [
      { names: ['docker.io/library/busybox@sha256:abc', 'docker.io/library/busybox:latest'], sizeBytes: 1400000 },
      { names: ['registry.k8s.io/pause:3.9'], sizeBytes: 300000 },
    ]);
    t.same(status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), [
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
      ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
    ]);
  });

  await t.test('conditions follow the measurements (with the transition period) and the runtime', async (t) => {
    const { agent, host, runtime } = start('node-b', { evictionHard: { 'memory.available': '1Gi', 'nodefs.available': '10%', 'pid.available': '1000' } });
    await waitFor('node-b Ready', async () => condition(await getNode('node-b'), 'Ready')?.status === 'True');
    host.workingSet = 7.5 * GiB;
    host.fs = { ...host.fs, availableBytes: 5 * GiB };
    host.processes = 4_194_000;
    const pressed = await waitFor('pressure', async () => {
      const n = await getNode('node-b');
      return ['MemoryPressure', 'DiskPressure', 'PIDPressure'].every((c) => condition(n, c)?.status === 'True') ? n : undefined;
    });
    t.equal(condition(pressed, 'MemoryPressure')?.reason, 'KubeletHasInsufficientMemory');
    t.equal(condition(pressed, 'DiskPressure')?.reason, 'KubeletHasDiskPressure');
    t.equal(condition(pressed, 'PIDPressure')?.reason, 'KubeletHasInsufficientPID');
    t.ok(agent.pressureConditions.has('MemoryPressure'));
    t.equal(agent.observations?.['memory.available'].available, 0.5 * GiB, 'measurements exposed for the eviction manager');
    const relievedAt = Date.now();
    host.workingSet = 2 * GiB;
    host.fs = { ...host.fs, availableBytes: 60 * GiB };
    host.processes = 200;
    await waitFor('pressure cleared', async () => condition(await getNode('node-b'), 'MemoryPressure')?.status === 'False');
    t.ok(Date.now() - relievedAt >= 500, 'not before the transition period');

    runtime.state = { runtimeReady: true, networkReady: false, message: 'cni plugin not initialized' };
    const notReady = await waitFor('NotReady', async () => {
      const c = condition(await getNode('node-b'), 'Ready');
      return c?.status === 'False' ? c : undefined;
    });
    t.equal(notReady.reason, 'KubeletNotReady');
    t.match(notReady.message, /^runtime network not ready: .*cni plugin not initialized/);
    runtime.state = { runtimeReady: false, networkReady: true, message: 'containerd is starting' };
    await waitFor('runtime not ready message', async () => /^Container runtime not ready: .*containerd is starting/.test(condition(await getNode('node-b'), 'Ready')?.message ?? ''));
    runtime.state = { runtimeReady: true, networkReady: true, message: '' };
    await waitFor('Ready again', async () => condition(await getNode('node-b'), 'Ready')?.status === 'True');
  });

  await t.test('status is posted only when it changed, within the report frequency', async (t) => {
    const { host } = start('node-c', {});
    await waitFor('node-c Ready', async () => condition(await getNode('node-c'), 'Ready')?.status === 'True');
    await new Promise((r) => setTimeout(r, 300));
    const rv = (await getNode('node-c')).metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, 1000));
    t.equal((await getNode('node-c')).metadata.resourceVersion, rv, 'heartbeats alone are not posted');
    host.machine.kernelVersion = '6.2.0-test';
    await waitFor('kernel change posted', async () => (await getNode('node-c')).status?.nodeInfo?.kernelVersion === '6.2.0-test');
    t.pass('a change is posted at the next tick');
  });

  await t.test('the lease is created with its owner and renewed, and stop ends it', async (t) => {
    const { agent } = start('node-d', {});
    const node = await waitFor('node-d', async () => getNode('node-d'));
    const first = await waitFor('lease', async () => (await client.get(RESOURCES.leases, 'kube-node-lease', 'node-d')) as LeaseObject);
    t.equal(first.spec?.holderIdentity, 'node-d');
    t.equal(first.spec?.leaseDurationSeconds, 1);
    t.match(first.spec?.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    t.same(first.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'node-d', uid: node.metadata.uid }]);
    const renewed = await waitFor('renewal', async () => {
      const l = (await client.get(RESOURCES.leases, 'kube-node-lease', 'node-d')) as LeaseObject;
      return l.spec!.renewTime! > first.spec!.renewTime! ? l : undefined;
    });
    t.ok(renewed, 'renewed within the renew interval');
    await agent.stop();
    const after = ((await client.get(RESOURCES.leases, 'kube-node-lease', 'node-d')) as LeaseObject).spec?.renewTime;
    await new Promise((r) => setTimeout(r, 700));
    t.equal(((await client.get(RESOURCES.leases, 'kube-node-lease', 'node-d')) as LeaseObject).spec?.renewTime, after, 'no renewal after stop');
  });

  await t.test('an existing node is reconciled, not recreated', async (t) => {
    const created = (await client.create(RESOURCES.nodes, undefined, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-e', labels: { 'kubernetes.io/hostname': 'stale', custom: 'kept' } },
      status: { capacity: { cpu: '2', 'example.com/gpu': '4', 'hugepages-1Gi': '2Gi' }, allocatable: { cpu: '2', 'example.com/gpu': '4', 'hugepages-1Gi': '2Gi' } },
    } as never)) as unknown as NodeObject;
    const { agent } = start('node-e', {});
    const node = await waitFor('node-e Ready', async () => {
      const n = await getNode('node-e');
      return condition(n, 'Ready')?.status === 'True' ? n : undefined;
    });
    t.ok(agent.registered);
    t.equal(node.metadata.uid, created.metadata.uid, 'the same object');
    t.equal(node.metadata.labels?.['kubernetes.io/hostname'], 'node-e');
    t.equal(node.metadata.labels?.custom, 'kept');
    t.equal(node.metadata.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach'], 'true');
    t.equal(node.status?.capacity?.['example.com/gpu'], '0', 'extended resources zeroed');
    t.notOk(node.status?.capacity?.['hugepages-1Gi'], 'hugepages the host lacks removed');
    t.equal(node.status?.capacity?.['hugepages-2Mi'], '0');
  });
});
