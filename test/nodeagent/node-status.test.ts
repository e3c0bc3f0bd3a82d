/**
 * Node status pieces without a server: quantities, eviction thresholds and the pressure transition
 * period, the setters (capacity and allocatable, nodeInfo, images, conditions and their times),
 * the status patch, the registration rules, and the real host's readings.
 */
import os from 'node:os';
import t from 'tap';
import { LinuxHost, parseMeminfo, prettyName } from '../../src/nodeagent/node/linux-host';
import type { MachineInfo } from '../../src/nodeagent/node/host';
import { binaryQuantity, decimalQuantity } from '../../src/nodeagent/node/quantity';
import { initialNode, isExtendedResource, nodeHostname, reconcileExistingNode, ANNOTATION_CMAD } from '../../src/nodeagent/node/registration';
import {
  machineCapacity,
  setCapacity,
  setImages,
  setPressureCondition,
  setReadyCondition,
  type NodeObject,
} from '../../src/nodeagent/node/setters';
import { nodeStatusHasChanged, nodeStatusPatch } from '../../src/nodeagent/node/status-patch';
import { hardEvictionReservation, observe, parseThresholds, PressureTracker, thresholdsMet } from '../../src/nodeagent/node/thresholds';

const GiB = 2 ** 30;

const machine = (over: Partial<MachineInfo> = {}): MachineInfo => ({
  numCores: 4,
  memoryCapacityBytes: 8 * GiB,
  hugePages: [],
  machineId: 'm',
  systemUuid: 's',
  bootId: 'b',
  kernelVersion: '6.1.0',
  osImage: 'Debian GNU/Linux 12 (bookworm)',
  operatingSystem: 'linux',
  architecture: 'amd64',
  ...over,
});

t.test('quantities are written in kube canonical form', async (t) => {
  t.equal(binaryQuantity(16393988 * 1024), '16393988Ki');
  t.equal(binaryQuantity(GiB), '1Gi');
  t.equal(binaryQuantity(1000), '1000');
  t.equal(binaryQuantity(0), '0');
  t.equal(decimalQuantity(110), '110');
  t.equal(decimalQuantity(4), '4');
  t.equal(decimalQuantity(1.5), '1500m');
});

t.test('capacity: pods from maxPods or podsPerCore, hugepages, ephemeral-storage', async (t) => {
  const fs = { capacityBytes: 100 * GiB, availableBytes: 50 * GiB, inodes: 1000, inodesFree: 500 };
  t.same(machineCapacity(machine(), fs, 110, 0), { cpu: 4, memory: 8 * GiB, pods: 110, 'ephemeral-storage': 100 * GiB });
  t.equal(machineCapacity(machine(), fs, 110, 10).pods, 40, 'podsPerCore * cores when smaller');
  t.equal(machineCapacity(machine(), fs, 30, 10).pods, 30, 'maxPods when smaller');
  const huge = machineCapacity(machine({ hugePages: [{ pageSizeKiB: 2048, numPages: 512 }, { pageSizeKiB: 1048576, numPages: 0 }] }), fs, 110, 0);
  t.equal(huge['hugepages-2Mi'], GiB);
  t.equal(huge['hugepages-1Gi'], 0);
});

t.test('allocatable = capacity - reserved - hard eviction, never negative, hugepages out of memory', async (t) => {
  const node: NodeObject = { metadata: { name: 'n' } };
  const thresholds = parseThresholds({ 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'bogus.signal': '1' });
  t.equal(thresholds.length, 3, 'unknown signals are skipped');
  const capacity = { cpu: 4, memory: 8 * GiB, pods: 110, 'ephemeral-storage': 100 * GiB, 'hugepages-2Mi': GiB };
  const reservation: Record<string, number> = { cpu: 0.5, memory: GiB, ...{} };
  for (const [k, v] of Object.entries(hardEvictionReservation(thresholds, capacity))) reservation[k] = (reservation[k] ?? 0) + v;
  t.equal(reservation['ephemeral-storage'], 10 * GiB);
  setCapacity(node, capacity, reservation);
  t.same(node.status?.capacity, { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi', 'hugepages-2Mi': '1Gi' });
  t.equal(node.status?.allocatable?.cpu, '3500m');
  t.equal(node.status?.allocatable?.memory, `${8 * 1024 - 1024 - 100 - 1024}Mi`, 'minus reserved, eviction and hugepages');
  t.equal(node.status?.allocatable?.['ephemeral-storage'], '90Gi');
  setCapacity(node, { cpu: 1 }, { cpu: 2 });
  t.equal(node.status?.allocatable?.cpu, '0', 'never negative');
});

t.test('thresholds met from measurements, and the pressure transition period', async (t) => {
  const thresholds = parseThresholds({ 'memory.available': '1Gi', 'nodefs.available': '10%', 'pid.available': '100', 'imagefs.available': '0%' });
  t.equal(thresholds.length, 3, '0% disables a threshold');
  const fs = { capacityBytes: 100 * GiB, availableBytes: 50 * GiB, inodes: 1000, inodesFree: 500 };
  const base = { time: 0, memoryCapacityBytes: 8 * GiB, memoryWorkingSetBytes: 2 * GiB, nodefs: fs, imagefs: fs, maxPid: 1000, numProcesses: 100 };
  t.same(thresholdsMet(thresholds, observe(base)), []);
  const tight = { ...base, memoryWorkingSetBytes: 7.5 * GiB, nodefs: { ...fs, availableBytes: 5 * GiB }, numProcesses: 950 };
  t.same(thresholdsMet(thresholds, observe(tight)).map((x) => x.signal).sort(), ['memory.available', 'nodefs.available', 'pid.available']);
  const tracker = new PressureTracker(1000);
  t.same([...tracker.update(thresholdsMet(thresholds, observe(tight)), 0)].sort(), ['DiskPressure', 'MemoryPressure', 'PIDPressure']);
  t.same([...tracker.update([], 500)].sort(), ['DiskPressure', 'MemoryPressure', 'PIDPressure'], 'kept within the period');
  t.same([...tracker.update([], 1000)], [], 'cleared once the period passed');
});

t.test('pressure conditions: heartbeat every time, transition and event only on a flip', async (t) => {
  const node: NodeObject = { metadata: { name: 'n' } };
  const events: string[] = [];
  const record = (_type: string, reason: string) => void events.push(reason);
  setPressureCondition(node, 'MemoryPressure', false, 't1', record);
  t.match(node.status?.conditions?.[0], { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available', lastHeartbeatTime: 't1', lastTransitionTime: 't1' });
  setPressureCondition(node, 'MemoryPressure', false, 't2', record);
  t.match(node.status?.conditions?.[0], { lastHeartbeatTime: 't2', lastTransitionTime: 't1' });
  setPressureCondition(node, 'MemoryPressure', true, 't3', record);
  t.match(node.status?.conditions?.[0], { status: 'True', reason: 'KubeletHasInsufficientMemory', message: 'kubelet has insufficient memory available', lastTransitionTime: 't3' });
  setPressureCondition(node, 'DiskPressure', true, 't3', record);
  setPressureCondition(node, 'PIDPressure', false, 't3', record);
  t.match(node.status?.conditions?.[1], { type: 'DiskPressure', reason: 'KubeletHasDiskPressure', message: 'kubelet has disk pressure' });
  t.match(node.status?.conditions?.[2], { type: 'PIDPressure', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' });
  t.same(events, ['NodeHasSufficientMemory', 'NodeHasInsufficientMemory', 'NodeHasDiskPressure', 'NodeHasSufficientPID']);
});

t.test('Ready: runtime errors aggregated, missing capacity, transition time kept', async (t) => {
  const node: NodeObject = { metadata: { name: 'n' }, status: { capacity: { cpu: '1', memory: '1Gi', pods: '110', 'ephemeral-storage': '1Gi' } } };
  const events: string[] = [];
  const record = (_type: string, reason: string) => void events.push(reason);
  setReadyCondition(node, ['container runtime is down'], 't1', record);
  t.match(node.status?.conditions?.[0], { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'container runtime is down', lastTransitionTime: 't1' });
  setReadyCondition(node, ['a', 'b'], 't2', record);
  t.match(node.status?.conditions?.[0], { message: '[a, b]', lastTransitionTime: 't1', lastHeartbeatTime: 't2' });
  setReadyCondition(node, [], 't3', record);
  t.match(node.status?.conditions?.[0], { status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastTransitionTime: 't3' });
  t.same(events, ['NodeReady']);
  delete node.status!.capacity!.pods;
  setReadyCondition(node, [], 't4', record);
  t.match(node.status?.conditions?.[0], { status: 'False', message: 'missing node capacity for resources: pods' });
});

t.test('images: largest first, capped, five names each', async (t) => {
  const node: NodeObject = { metadata: { name: 'n' } };
  const names = (n: number) => Array.from({ length: n }, (_, i) => `r/img:${i}`);
  setImages(node, [
    { id: 'a', repoTags: ['small:1'], repoDigests: ['small@sha256:1'], size: '10' },
    { id: 'b', repoTags: names(7), repoDigests: [], size: 1000 },
    { id: 'c', repoTags: ['mid:1'], repoDigests: [], size: 500 },
  ] as never, 2);
  t.same(node.status?.images, [
    { names: names(5), sizeBytes: 1000 },
    { names: ['mid:1'], sizeBytes: 500 },
  ]);
  setImages(node, [{ id: 'a', repoTags: ['x'], repoDigests: ['x@sha256:1'], size: 1 }] as never, -1);
  t.same(node.status?.images, [{ names: ['x@sha256:1', 'x'], sizeBytes: 1 }], 'digests first, -1: no cap');
});

t.test('status patch: changed fields only, conditions by type, addresses replaced', async (t) => {
  const before: NodeObject = {
    metadata: { name: 'n', labels: { a: '1' } },
    spec: { podCIDR: '10.0.0.0/24' },
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: 't1', reason: 'r' },
        { type: 'Ready', status: 'True', lastHeartbeatTime: 't1', lastTransitionTime: 't0' },
      ],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: 'n' }],
      capacity: { cpu: '4', 'example.com/x': '1' },
    },
  };
  const after = structuredClone(before);
  after.spec!.podCIDR = 'ignored';
  after.status!.conditions![1].lastHeartbeatTime = 't2';
  t.notOk(nodeStatusHasChanged(before.status, after.status), 'heartbeats alone are no change');
  t.same(nodeStatusPatch(before, after), {
    status: { '$setElementOrder/conditions': [{ type: 'MemoryPressure' }, { type: 'Ready' }], conditions: [{ type: 'Ready', lastHeartbeatTime: 't2' }] },
  });
  after.status!.addresses![0].address = '10.0.0.2';
  delete after.status!.capacity!['example.com/x'];
  t.ok(nodeStatusHasChanged(before.status, after.status));
  const patch = nodeStatusPatch(before, after) as { status: Record<string, unknown>; spec?: unknown };
  t.notOk(patch.spec, 'spec never patched');
  t.same(patch.status.addresses, [{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'Hostname', address: 'n' }, { $patch: 'replace' }]);
  t.same(patch.status.capacity, { 'example.com/x': null });
  t.equal(nodeStatusPatch(before, structuredClone(before)), undefined);
});

t.test('initial node: default labels, --node-labels over them, taints, annotation', async (t) => {
  const warnings: string[] = [];
  const node = initialNode({
    nodeName: 'n1',
    hostname: 'n1',
    operatingSystem: 'linux',
    architecture: 'arm64',
    nodeLabels: { 'kubernetes.io/arch': 'amd64', team: 'a' },
    registerWithTaints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }],
    registerSchedulable: false,
    warn: (m) => warnings.push(m),
  });
  t.same(node.metadata.labels, {
    'kubernetes.io/hostname': 'n1',
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'beta.kubernetes.io/arch': 'arm64',
    team: 'a',
  });
  t.same(warnings, ['the node label kubernetes.io/arch=amd64 will overwrite default setting arm64']);
  t.same(node.spec?.taints, [{ key: 'k', value: 'v', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]);
  t.equal(node.spec?.unschedulable, true);
  t.same(node.metadata.annotations, { [ANNOTATION_CMAD]: 'true' });
  t.equal(nodeHostname(undefined, 'Build-Host'), 'build-host');
  t.equal(nodeHostname(' Worker-1 ', 'Build-Host'), 'worker-1');
  t.throws(() => nodeHostname('', ' '));
  t.notOk(initialNode({ nodeName: 'n', hostname: 'n', operatingSystem: 'linux', architecture: 'amd64', controllerAttachDetach: false }).metadata.annotations);
});

t.test('reconcile an existing node: annotation, default labels, extended resources, hugepages', async (t) => {
  const wanted = initialNode({ nodeName: 'n', hostname: 'n', operatingSystem: 'linux', architecture: 'amd64' });
  wanted.status = { capacity: { 'hugepages-2Mi': '1Gi' }, allocatable: { 'hugepages-2Mi': '1Gi' } };
  const existing: NodeObject = {
    metadata: { name: 'n', labels: { 'kubernetes.io/hostname': 'old', 'topology.kubernetes.io/zone': 'z', custom: 'c' } },
    status: { capacity: { cpu: '2', 'example.com/gpu': '2', 'hugepages-1Gi': '2Gi' }, allocatable: { cpu: '2', 'example.com/gpu': '2', 'hugepages-1Gi': '2Gi' } },
  };
  t.ok(reconcileExistingNode(wanted, existing));
  t.equal(existing.metadata.annotations?.[ANNOTATION_CMAD], 'true');
  t.same(existing.metadata.labels, {
    'kubernetes.io/hostname': 'n',
    'topology.kubernetes.io/zone': 'z',
    custom: 'c',
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'beta.kubernetes.io/arch': 'amd64',
  }, 'labels the new node lacks are kept');
  t.same(existing.status?.capacity, { cpu: '2', 'example.com/gpu': '0', 'hugepages-2Mi': '1Gi' });
  t.same(existing.status?.allocatable, { cpu: '2', 'example.com/gpu': '0', 'hugepages-2Mi': '1Gi' });
  t.notOk(reconcileExistingNode(wanted, existing), 'nothing left to change');
  t.ok(isExtendedResource('example.com/gpu'));
  t.notOk(isExtendedResource('kubernetes.io/x'));
  t.notOk(isExtendedResource('cpu'));
});

t.test('the real host: machine facts, filesystem and measurements', async (t) => {
  t.equal(prettyName('NAME=x\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'), 'Debian GNU/Linux 12 (bookworm)');
  t.equal(prettyName(''), 'Linux');
  t.equal(parseMeminfo('MemTotal:       16393988 kB\nHugePages_Total:       0\n').get('MemTotal'), 16393988 * 1024);
  const host = new LinuxHost({ rootDir: os.tmpdir() });
  const info = await host.machineInfo();
  t.equal(info.numCores, os.cpus().length);
  t.ok(info.memoryCapacityBytes > 0 && info.memoryCapacityBytes <= os.totalmem() + 1);
  t.equal(info.kernelVersion, os.release());
  t.equal(info.operatingSystem, 'linux');
  t.ok(['amd64', 'arm64'].includes(info.architecture));
  t.match(info.bootId, /^[0-9a-f-]{36}$/);
  const m = await host.measure();
  t.ok(m.memoryWorkingSetBytes > 0 && m.memoryWorkingSetBytes < m.memoryCapacityBytes);
  t.ok(m.nodefs.capacityBytes > 0 && m.nodefs.availableBytes <= m.nodefs.capacityBytes);
  t.ok(m.maxPid > 0 && m.numProcesses > 0 && m.numProcesses < m.maxPid);
  t.ok((await host.rootFs()).capacityBytes > 0);
  t.ok(await host.nodeAddress('127.0.0.1'), 'an IP as host name is taken as is');
});
