/**
 * Resource management against a real containerd (test/helpers/containerd.ts, root): a Burstable
 * pod's sandbox and container land under <root>/kubepods/burstable/pod<uid> with the pod's limits,
 * the summary provider reads real cpu and memory of the container through CRI ListContainerStats
 * and the node from /proc and the root cgroup, and the pod cgroup is removed once the pod is gone.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import { CgroupfsManager } from '../../src/nodeagent/cm/cgroup-manager';
import { QosCgroupManager } from '../../src/nodeagent/cm/qos-cgroups';
import { BUSYBOX_IMAGE } from '../../src/nodeagent/cri/busybox-images';
import { KubeRuntimeManager } from '../../src/nodeagent/kuberuntime/kube-runtime-manager';
import { resourceMetricsText } from '../../src/nodeagent/server/stats';
import { CriStatsClient } from '../../src/nodeagent/stats/cri-stats-client';
import { LinuxNodeStats } from '../../src/nodeagent/stats/node-stats';
import { SummaryProvider } from '../../src/nodeagent/stats/summary-provider';
import type { Pod, PodRuntimeStatus } from '../../src/nodeagent/types';
import { waitFor } from '../e2e/harness';
import { containerdSkipReason, startContainerd } from '../helpers/containerd';

t.test('QoS cgroups and stats with containerd', { skip: containerdSkipReason() ?? false }, async (t) => {
  const containerd = await startContainerd();
  t.teardown(() => containerd.stop());
  const cgroups = new CgroupfsManager();
  const cgroupRoot = `ballast-test-${process.pid}`;
  // every cgroup this test makes sits under its own root, removed at the end
  t.teardown(() => cgroups.destroy([cgroupRoot]));
  const active: Pod[] = [];
  const qos = new QosCgroupManager({ cgroups, cgroupRoot: `/${cgroupRoot}`, activePods: () => active, enforceCpuLimits: true, logger: pino({ level: 'silent' }) });
  qos.setup({ cpuMilli: 2000 });

  const manager = new KubeRuntimeManager({
    runtime: containerd.runtime,
    images: containerd.images,
    helper: {
      generateRunContainerOptions: async () => ({ envs: [], mounts: [], hostname: 'web', hostDomain: '' }),
      getPodDNS: () => ({ servers: [], searches: [], options: [] }),
      getPodCgroupParent: (pod) => qos.ensurePod(pod),
      getPodDir: (uid) => path.join(containerd.dir, 'kubelet-pods', uid),
    },
    recorder: { event: () => undefined },
    podLogsDir: containerd.podLogRoot,
  });
  const uid = 'c0ffee00-0000-4000-8000-0000000000b1';
  const pod: Pod = {
    metadata: { name: 'burst', namespace: 'default', uid },
    spec: {
      hostNetwork: true,
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'app',
          image: BUSYBOX_IMAGE,
          imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', 'echo started; sleep 3600'],
          resources: { requests: { cpu: '100m', memory: '16Mi' }, limits: { memory: '64Mi' } },
        },
      ],
    },
  };
  active.push(pod);
  const status = (): Promise<PodRuntimeStatus> => manager.getPodStatus(uid, 'burst', 'default');
  const result = await manager.syncPod(pod, await status(), []);
  t.same(result.results.filter((r) => r.error), [], 'the pod starts');
  const running = await waitFor('app running', async () => {
    const s = await status();
    return s.containerStatuses.find((c) => c.name === 'app' && c.state === 'running') ? s : undefined;
  });
  const containerId = running.containerStatuses.find((c) => c.name === 'app')!.id.replace(/^[a-z]+:\/\//, '');

  t.test('the container runs under kubepods/burstable/pod<uid> with the pod limits', async (t) => {
    const podDir = path.join('/sys/fs/cgroup/memory', cgroupRoot, 'kubepods', 'burstable', `pod${uid}`);
    t.ok(fs.existsSync(podDir), 'the pod cgroup exists');
    t.equal(fs.readFileSync(path.join(podDir, 'memory.limit_in_bytes'), 'utf8').trim(), String(64 * 2 ** 20), 'every container declares a memory limit: the pod has it');
    const procs = fs.readFileSync(path.join(podDir, containerId, 'cgroup.procs'), 'utf8').trim();
    t.ok(procs.length > 0, 'the container process is in <pod cgroup>/<container id>');
    const pid = procs.split('\n')[0];
    t.match(fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8'), new RegExp(`memory:/${cgroupRoot}/kubepods/burstable/pod${uid}/${containerId}`));
    t.equal(fs.readFileSync(path.join('/sys/fs/cgroup/cpu', cgroupRoot, 'kubepods', 'burstable', `pod${uid}`, 'cpu.shares'), 'utf8').trim(), '102');
    t.equal(fs.readFileSync(path.join('/sys/fs/cgroup/cpu', cgroupRoot, 'kubepods', 'burstable', 'cpu.shares'), 'utf8').trim(), '102', 'burstable shares follow the pod');
  });

  t.test('the summary: real cpu and memory of the container, the node and the image filesystem', async (t) => {
    const stats = new CriStatsClient({ endpoint: containerd.endpoint });
    t.teardown(() => stats.close());
    const provider = new SummaryProvider({
      nodeName: 'node-a',
      node: new LinuxNodeStats({ rootDir: containerd.dir }),
      runtime: containerd.runtime,
      images: containerd.images,
      containerStats: stats,
      podLogsDir: containerd.podLogRoot,
    });
    const summary = await waitFor('container stats', async () => {
      const s = await provider.summary(false);
      const app = s.pods.find((p) => p.podRef.uid === uid)?.containers.find((c) => c.name === 'app');
      return app?.memory?.workingSetBytes ? s : undefined;
    });
    const p = summary.pods.find((x) => x.podRef.uid === uid)!;
    t.same(p.podRef, { name: 'burst', namespace: 'default', uid });
    const app = p.containers.find((c) => c.name === 'app')!;
    t.ok(app.cpu!.usageCoreNanoSeconds! > 0, 'cpu time used');
    t.ok(app.memory!.workingSetBytes! > 0 && app.memory!.workingSetBytes! < 64 * 2 ** 20, 'a working set under the limit');
    t.ok((app.logs?.usedBytes ?? 0) > 0, 'the log file has "started"');
    t.ok(summary.node.runtime?.imageFs?.usedBytes !== undefined && summary.node.runtime.imageFs.capacityBytes! > 0, 'the image filesystem');
    t.ok(summary.node.memory!.workingSetBytes! > 0 && summary.node.fs!.capacityBytes! > 0 && summary.node.rlimit!.curproc! > 0);
    t.match(resourceMetricsText(await provider.summary(true)), /container_memory_working_set_bytes\{container="app",namespace="default",pod="burst"\} [1-9]\d* \d+/);
  });

  t.test('the pod cgroup goes with the pod', async (t) => {
    const runningPod = (await manager.getPods(false)).find((p) => p.uid === uid)!;
    await manager.killPod(pod, runningPod);
    active.length = 0;
    await manager.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 0, maxContainers: -1 }, true, false);
    for (const s of await containerd.runtime.listPodSandbox()) await containerd.runtime.removePodSandbox(s.id);
    await waitFor('the pod cgroup removed', async () => {
      qos.cleanupOrphanedPodCgroups();
      return qos.podCgroups().has(uid) ? undefined : true;
    });
    t.notOk(fs.existsSync(path.join('/sys/fs/cgroup/memory', cgroupRoot, 'kubepods', 'burstable', `pod${uid}`)));
    t.ok(fs.existsSync(path.join('/sys/fs/cgroup/memory', cgroupRoot, 'kubepods', 'burstable')), 'the QoS cgroups stay');
  });
});
