/**
 * kubelet's container garbage collection (kuberuntime_gc.go): dead containers older than minAge,
 * grouped by pod and container name, all of them for deleted pods (and finished pods when
 * evictNonDeletedPods), else beyond maxPerPodContainer per group and maxContainers in all, oldest
 * first; sandboxes without containers that are not ready, keeping each live pod's newest; the log
 * directories of deleted pods.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Container__Output } from '../cri/generated/runtime/v1/Container';
import type { RuntimeService } from '../types';
import { LABELS } from './labels';

/** what the agent knows of a pod by uid (kubelet's podStateProvider) */
export interface PodStateProvider {
  isPodDeleted(uid: string): boolean;
  isPodTerminated(uid: string): boolean;
}

export interface GarbageCollectInput {
  runtime: RuntimeService;
  removeContainer: (rawId: string) => Promise<void>;
  podState?: PodStateProvider;
  podLogsDir: string;
  now: () => number;
  policy: { minAgeMs: number; maxPerPodContainer: number; maxContainers: number };
  allSourcesReady: boolean;
  evictNonDeletedPods: boolean;
}

function createdMs(c: { createdAt: string }): number {
  return Number(BigInt(c.createdAt || '0') / 1_000_000n);
}

export async function garbageCollect(input: GarbageCollectInput): Promise<void> {
  const { runtime, policy, podState } = input;
  const evictable = (uid: string) => podState !== undefined && (podState.isPodDeleted(uid) || (input.evictNonDeletedPods && podState.isPodTerminated(uid)));
  const remove = async (containers: Container__Output[]) => {
    for (const c of containers) await input.removeContainer(c.id).catch(() => undefined);
  };

  // containers
  const all = await runtime.listContainers();
  const newerThan = input.now() - policy.minAgeMs;
  const units = new Map<string, Container__Output[]>();
  for (const c of all) {
    if (c.state === 'CONTAINER_RUNNING' || createdMs(c) > newerThan) continue;
    const uid = c.labels[LABELS.podUid];
    if (uid === undefined) continue;
    const key = `${uid}/${c.labels[LABELS.containerName] ?? c.metadata?.name ?? ''}`;
    units.set(key, [...(units.get(key) ?? []), c]);
  }
  for (const list of units.values()) list.sort((a, b) => createdMs(b) - createdMs(a));
  if (input.allSourcesReady) {
    for (const [key, list] of units) {
      if (!evictable(key.slice(0, key.indexOf('/')))) continue;
      await remove(list);
      units.delete(key);
    }
  }
  const enforcePerUnit = async (max: number) => {
    for (const [key, list] of units) {
      if (list.length <= max) continue;
      await remove(list.slice(max));
      units.set(key, list.slice(0, max));
    }
  };
  if (policy.maxPerPodContainer >= 0) await enforcePerUnit(policy.maxPerPodContainer);
  const count = () => [...units.values()].reduce((sum, list) => sum + list.length, 0);
  if (policy.maxContainers >= 0 && count() > policy.maxContainers) {
    await enforcePerUnit(Math.max(1, Math.floor(policy.maxContainers / Math.max(1, units.size))));
    if (count() > policy.maxContainers) {
      const flat = [...units.values()].flat().sort((a, b) => createdMs(b) - createdMs(a));
      await remove(flat.slice(policy.maxContainers));
    }
  }

  // sandboxes
  const remaining = await runtime.listContainers();
  const withContainers = new Set(remaining.map((c) => c.podSandboxId));
  const byPod = new Map<string, { id: string; created: number; active: boolean }[]>();
  for (const s of await runtime.listPodSandbox()) {
    const uid = s.labels[LABELS.podUid] ?? s.metadata?.uid;
    if (!uid) continue;
    byPod.set(uid, [...(byPod.get(uid) ?? []), { id: s.id, created: createdMs(s), active: s.state === 'SANDBOX_READY' || withContainers.has(s.id) }]);
  }
  for (const [uid, sandboxes] of byPod) {
    sandboxes.sort((a, b) => b.created - a.created);
    const candidates = evictable(uid) ? sandboxes : sandboxes.slice(1);
    for (const sandbox of candidates) {
      if (sandbox.active) continue;
      await runtime.removePodSandbox(sandbox.id).catch(() => undefined);
    }
  }

  // log directories of deleted pods: <ns>_<name>_<uid>
  if (input.allSourcesReady && podState) {
    let entries: string[] = [];
    try {
      entries = fs.readdirSync(input.podLogsDir);
    } catch {
      return;
    }
    for (const entry of entries) {
      const uid = entry.slice(entry.lastIndexOf('_') + 1);
      if (!podState.isPodDeleted(uid)) continue;
      fs.rmSync(path.join(input.podLogsDir, entry), { recursive: true, force: true });
    }
  }
}
