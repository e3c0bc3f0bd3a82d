/**
 * A KubeRuntimeManager over the in-memory FakeCri, with a helper writing under a temporary
 * directory, a recorder keeping the events, and a clock the test moves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeRuntimeManager, type KubeRuntimeManagerOptions } from '../../src/nodeagent/kuberuntime/kube-runtime-manager';
import type { Pod, ProbeResult, RuntimeHelper } from '../../src/nodeagent/types';
import { FakeCri } from './fake-cri';

export interface RecordedEvent {
  type: string;
  reason: string;
  message: string;
  fieldPath?: string;
}

export function harness(overrides: Partial<KubeRuntimeManagerOptions> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kuberuntime-'));
  const cri = new FakeCri();
  const events: RecordedEvent[] = [];
  const liveness = new Map<string, ProbeResult>();
  let extraMs = 0;
  const helper: RuntimeHelper = {
    generateRunContainerOptions: async (_pod, container) => {
      if (container.name === 'broken') throw new Error('configmap "settings" not found');
      return { envs: [{ name: 'GREETING', value: 'hello' }], mounts: [{ containerPath: '/data', hostPath: path.join(dir, 'data'), readOnly: true }], hostname: 'web', hostDomain: '' };
    },
    getPodDNS: () => ({ servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] }),
    getPodCgroupParent: () => '/kubepods/burstable/pod1',
    getPodDir: (uid) => path.join(dir, 'pods', uid),
  };
  const manager = new KubeRuntimeManager({
    runtime: cri.runtime,
    images: cri.imageService,
    helper,
    recorder: { event: (_obj, type, reason, message, fieldPath) => events.push({ type, reason, message, fieldPath }) },
    livenessResults: { get: (id) => liveness.get(id) },
    podLogsDir: path.join(dir, 'logs'),
    runtimeType: 'fake',
    now: () => Number(cri.clockNs / 1_000_000n) + extraMs,
    memoryCapacityBytes: 8 * 2 ** 30,
    ...overrides,
  });
  return {
    dir,
    cri,
    events,
    liveness,
    manager,
    advance(ms: number) {
      extraMs += ms;
      cri.clockNs += BigInt(ms) * 1_000_000n;
    },
    reasons: () => events.map((e) => e.reason),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
    /** one sync from the runtime's current view */
    async sync(pod: Pod, secrets = [] as Parameters<KubeRuntimeManager['syncPod']>[2]) {
      const status = await manager.getPodStatus(String(pod.metadata?.uid), String(pod.metadata?.name), String(pod.metadata?.namespace));
      return manager.syncPod(pod, status, secrets);
    },
  };
}

export function makePod(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1', labels: { app: 'web' }, annotations: { note: 'x' }, ...metadata },
    spec: {
      restartPolicy: 'Always',
      containers: [{ name: 'app', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
      ...spec,
    },
  };
}
