/**
 * QoS cgroups on fake hierarchies (a directory standing for /sys/fs/cgroup): the pod cgroup's
 * resources per QoS class as ResourceConfigForPod computes them, written as cgroup v1 files and as
 * cgroup v2 files (cpu.weight conversion, cpu.max, memory.max, controllers enabled in the parents),
 * kubepods and the QoS cgroups, burstable shares following the active pods, the cgroup parent the
 * runtime helper hands to the sandbox, and orphaned pod cgroups removed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import t, { type Test } from 'tap';
import { CgroupfsManager, cpuSharesToWeight, detectCgroupVersion } from '../../src/nodeagent/cm/cgroup-manager';
import { resourceConfigForPod } from '../../src/nodeagent/cm/pod-resources';
import { kubepodsResources, QosCgroupManager } from '../../src/nodeagent/cm/qos-cgroups';
import { PodRuntimeHelper } from '../../src/nodeagent/env/runtime-helper';
import type { Pod } from '../../src/nodeagent/types';

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cgroups-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const read = (file: string) => fs.readFileSync(file, 'utf8').trim();

function pod(name: string, resources: { requests?: Record<string, string>; limits?: Record<string, string> }[]): Pod {
  return { kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { containers: resources.map((r, i) => ({ name: `c${i}`, resources: r })) } };
}

const guaranteed = pod('g', [{ requests: { cpu: '500m', memory: '128Mi' }, limits: { cpu: '500m', memory: '128Mi' } }]);
const burstableAll = pod('b', [{ requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '1', memory: '256Mi' } }]);
const burstablePart = pod('p', [{ requests: { cpu: '100m' }, limits: { memory: '64Mi' } }, { requests: { cpu: '200m' } }]);
const bestEffort = pod('e', [{}]);

t.test('ResourceConfigForPod per QoS class', async (t) => {
  t.same(resourceConfigForPod(guaranteed, true), { cpuShares: 512, cpuQuota: 50_000, cpuPeriod: 100_000, memoryLimit: 128 * 2 ** 20 });
  t.same(resourceConfigForPod(burstableAll, true), { cpuShares: 256, cpuQuota: 100_000, cpuPeriod: 100_000, memoryLimit: 256 * 2 ** 20 });
  t.same(resourceConfigForPod(burstablePart, true), { cpuShares: 307 }, 'limits only when every container declares them');
  t.same(resourceConfigForPod(bestEffort, true), { cpuShares: 2 });
  t.same(resourceConfigForPod(guaranteed, false), { cpuShares: 512, cpuQuota: -1, cpuPeriod: 100_000, memoryLimit: 128 * 2 ** 20 }, 'no quota without --cpu-cfs-quota');
});

function v1Tree(t: Test): string {
  const root = tmp(t);
  for (const c of ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids']) fs.mkdirSync(path.join(root, c));
  fs.writeFileSync(path.join(root, 'cpuset/cpuset.cpus'), '0-3\n');
  fs.writeFileSync(path.join(root, 'cpuset/cpuset.mems'), '0\n');
  return root;
}

function manager(cgroups: CgroupfsManager, pods: Pod[], cgroupRoot = '/') {
  return new QosCgroupManager({ cgroups, cgroupRoot, activePods: () => pods, enforceCpuLimits: true, logger: pino({ level: 'silent' }) });
}

t.test('cgroup v1: kubepods, QoS cgroups and pod cgroups in every controller', async (t) => {
  const root = v1Tree(t);
  const cgroups = new CgroupfsManager({ root });
  t.equal(cgroups.version, 1);
  t.equal(detectCgroupVersion(root), 1);
  const active = [burstableAll];
  const qos = manager(cgroups, active);
  qos.setup({ cpuMilli: 4000, memoryBytes: 8 * 2 ** 30 });
  t.equal(read(path.join(root, 'cpu/kubepods/cpu.shares')), '4096');
  t.equal(read(path.join(root, 'memory/kubepods/memory.limit_in_bytes')), String(8 * 2 ** 30));
  t.equal(read(path.join(root, 'cpuset/kubepods/cpuset.cpus')), '0-3', 'a new cpuset takes its parent cpus');
  t.equal(read(path.join(root, 'cpu/kubepods/besteffort/cpu.shares')), '2');
  t.equal(read(path.join(root, 'cpu/kubepods/burstable/cpu.shares')), '256', 'the Burstable pods requests');

  t.equal(qos.ensurePod(burstableAll), '/kubepods/burstable/poduid-b');
  t.equal(read(path.join(root, 'cpu/kubepods/burstable/poduid-b/cpu.shares')), '256');
  t.equal(read(path.join(root, 'cpu/kubepods/burstable/poduid-b/cpu.cfs_quota_us')), '100000');
  t.equal(read(path.join(root, 'cpu/kubepods/burstable/poduid-b/cpu.cfs_period_us')), '100000');
  t.equal(read(path.join(root, 'memory/kubepods/burstable/poduid-b/memory.limit_in_bytes')), String(256 * 2 ** 20));
  t.ok(fs.existsSync(path.join(root, 'pids/kubepods/burstable/poduid-b')));
  t.equal(qos.ensurePod(guaranteed), '/kubepods/poduid-g', 'Guaranteed pods sit directly under kubepods');
  t.equal(qos.ensurePod(bestEffort), '/kubepods/besteffort/poduid-e');
  t.equal(read(path.join(root, 'cpu/kubepods/besteffort/poduid-e/cpu.shares')), '2');
  active.push(burstablePart);
  qos.updateQosCgroups();
  t.equal(read(path.join(root, 'cpu/kubepods/burstable/cpu.shares')), String(Math.floor(((250 + 300) * 1024) / 1000)));
  t.same([...qos.podCgroups().keys()].sort(), ['uid-b', 'uid-e', 'uid-g']);
});

t.test('cgroup v2: one directory, controllers enabled in the parents, weight, cpu.max and memory.max', async (t) => {
  const root = tmp(t);
  fs.writeFileSync(path.join(root, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids rdma\n');
  fs.writeFileSync(path.join(root, 'cgroup.subtree_control'), '');
  const cgroups = new CgroupfsManager({ root });
  t.equal(cgroups.version, 2);
  const qos = manager(cgroups, [guaranteed], '/ballast');
  // the fake hierarchy has no interface files of its own: give each new directory its controllers
  const origCreate = cgroups.create.bind(cgroups);
  cgroups.create = (name, r) => {
    let dir = root;
    for (const part of name) {
      dir = path.join(dir, part);
      if (!fs.existsSync(dir)) {
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids\n');
      }
    }
    origCreate(name, r);
  };
  qos.setup({ cpuMilli: 2000 });
  t.equal(read(path.join(root, 'cgroup.subtree_control')), '+cpuset +cpu +io +memory +hugetlb +pids');
  t.equal(read(path.join(root, 'ballast/kubepods/cpu.weight')), String(cpuSharesToWeight(2048)));
  t.equal(qos.ensurePod(guaranteed), '/ballast/kubepods/poduid-g');
  const dir = path.join(root, 'ballast/kubepods/poduid-g');
  t.equal(read(path.join(dir, 'cpu.weight')), String(cpuSharesToWeight(512)));
  t.equal(read(path.join(dir, 'cpu.max')), '50000 100000');
  t.equal(read(path.join(dir, 'memory.max')), String(128 * 2 ** 20));
  t.equal(read(path.join(root, 'ballast/kubepods/cgroup.subtree_control')), '+cpuset +cpu +io +memory +hugetlb +pids');
  t.equal(cpuSharesToWeight(2), 1);
  t.equal(cpuSharesToWeight(1024), 39);
  t.equal(cpuSharesToWeight(262144), 10000);
});

t.test('orphaned pod cgroups go once nothing runs in them', async (t) => {
  const root = v1Tree(t);
  const cgroups = new CgroupfsManager({ root });
  const active = [burstableAll, bestEffort];
  const qos = manager(cgroups, active);
  qos.setup({ cpuMilli: 1000 });
  qos.ensurePod(burstableAll);
  qos.ensurePod(bestEffort);
  // a fake directory is not empty the way a cgroup is: stand in with a destroy that removes the directory
  const destroyed: string[] = [];
  cgroups.destroy = (name) => {
    destroyed.push(name.join('/'));
    for (const p of cgroups.paths(name)) fs.rmSync(p, { recursive: true, force: true });
  };
  fs.writeFileSync(path.join(root, 'cpu/kubepods/besteffort/poduid-e/cgroup.procs'), '4242\n');
  active.length = 0;
  qos.cleanupOrphanedPodCgroups();
  t.same(destroyed, ['kubepods/burstable/poduid-b'], 'the pod with a process left is kept for now');
  fs.writeFileSync(path.join(root, 'cpu/kubepods/besteffort/poduid-e/cgroup.procs'), '');
  qos.cleanupOrphanedPodCgroups();
  t.same(destroyed, ['kubepods/burstable/poduid-b', 'kubepods/besteffort/poduid-e']);
  t.same([...qos.podCgroups().keys()], []);
});

t.test('the runtime helper makes the pod cgroup and answers it as the cgroup parent', async (t) => {
  const root = v1Tree(t);
  const qos = manager(new CgroupfsManager({ root }), [burstableAll]);
  qos.setup({ cpuMilli: 1000 });
  const base = { sources: {} as never, recorder: { event: () => undefined } as never, volumes: {} as never, nodeName: 'n', nodeIP: '10.0.0.1' };
  const withQos = new PodRuntimeHelper({ ...base, cgroupsPerQOS: true, cgroupRoot: '/', podCgroups: qos });
  t.equal(withQos.getPodCgroupParent(burstableAll), '/kubepods/burstable/poduid-b');
  t.ok(fs.existsSync(path.join(root, 'memory/kubepods/burstable/poduid-b')));
  const off = new PodRuntimeHelper({ ...base, cgroupsPerQOS: false, cgroupRoot: '', podCgroups: qos });
  t.equal(off.getPodCgroupParent(guaranteed), '', '--cgroups-per-qos=false: the runtime default');
  t.notOk(fs.existsSync(path.join(root, 'cpu/kubepods/poduid-g')));
});

t.test('kubepods gets capacity, or capacity minus the reservations when pods are enforced; --pod-max-pids', async (t) => {
  const inputs = { cpuCores: 4, memoryBytes: 8 * 2 ** 30, kubeReserved: { cpu: '500m', memory: '1Gi' }, systemReserved: { cpu: '250m', memory: '512Mi' } };
  t.same(kubepodsResources({ ...inputs, enforceNodeAllocatable: [] }), { cpuMilli: 4000, memoryBytes: 8 * 2 ** 30 });
  t.same(kubepodsResources({ ...inputs, enforceNodeAllocatable: ['pods'] }), { cpuMilli: 3250, memoryBytes: 6.5 * 2 ** 30 });
  const root = v1Tree(t);
  const qos = new QosCgroupManager({ cgroups: new CgroupfsManager({ root }), activePods: () => [], enforceCpuLimits: true, podPidsLimit: 100, logger: pino({ level: 'silent' }) });
  qos.setup({ cpuMilli: 1000 });
  qos.ensurePod(bestEffort);
  t.equal(read(path.join(root, 'pids/kubepods/besteffort/poduid-e/pids.max')), '100');
});
