/**
 * Choosing the node to preempt on among the candidates (kube 1.20's pickOneNodeForPreemption).
 * Each rule keeps the nodes that tie on it and passes them to the next:
 *   1. a node that needs no victims at all wins at once;
 *   2. fewest PodDisruptionBudget violations;
 *   3. lowest priority of its most important victim;
 *   4. smallest sum of victim priorities, each shifted by 2^31 so that more pods never sum lower;
 *   5. fewest victims;
 *   6. the latest start among each node's most important victims (kube's GetEarliestPodStartTime);
 *   7. otherwise the first.
 */
import type { KubeObject } from '../../../client/types';
import { podPriority } from '../../framework/resource';
import { podStartTime, type NodeVictims } from './victims';

export interface Candidate {
  /** the node's name */
  name: string;
  victims: NodeVictims;
}

/** 2^31: kube adds MaxInt32+1 to every priority before summing */
const PRIORITY_SHIFT = 2 ** 31;

/** keep the candidates with the smallest key */
function keepMin(cands: Candidate[], key: (c: Candidate) => number): Candidate[] {
  let best = Infinity;
  let kept: Candidate[] = [];
  for (const c of cands) {
    const k = key(c);
    if (k < best) {
      best = k;
      kept = [c];
    } else if (k === best) kept.push(c);
  }
  return kept;
}

/** the earliest start among the victims with the highest priority */
function earliestStartOfTopVictims(pods: readonly KubeObject[], now: number): number {
  let top = podPriority(pods[0]);
  let earliest = podStartTime(pods[0], now);
  for (const p of pods) {
    const prio = podPriority(p);
    const start = podStartTime(p, now);
    if (prio === top) {
      if (start < earliest) earliest = start;
    } else if (prio > top) {
      top = prio;
      earliest = start;
    }
  }
  return earliest;
}

export function pickOneNodeForPreemption(candidates: readonly Candidate[], now = Date.now()): Candidate | undefined {
  if (candidates.length === 0) return undefined;
  const free = candidates.find((c) => c.victims.pods.length === 0);
  if (free) return free;
  let left = keepMin([...candidates], (c) => c.victims.numPDBViolations);
  if (left.length > 1) left = keepMin(left, (c) => podPriority(c.victims.pods[0]));
  if (left.length > 1) left = keepMin(left, (c) => c.victims.pods.reduce((sum, p) => sum + podPriority(p) + PRIORITY_SHIFT, 0));
  if (left.length > 1) left = keepMin(left, (c) => c.victims.pods.length);
  if (left.length === 1) return left[0];
  let chosen = left[0];
  let latest = earliestStartOfTopVictims(chosen.victims.pods, now);
  for (const c of left.slice(1)) {
    const start = earliestStartOfTopVictims(c.victims.pods, now);
    if (start > latest) {
      latest = start;
      chosen = c;
    }
  }
  return chosen;
}
