/**
 * The pods this node should run (kubelet's pod.Manager): regular and static pods by UID and by
 * full name, and the mirror pods (the API's copies of static pods) by full name, so that a static
 * pod's status can be written to its mirror pod and mirror pods without a static pod found.
 */
import type { Pod } from '../types';
import { CONFIG_MIRROR, isMirrorPod, podFullName, podUid, staticPodHash } from './annotations';

export class PodManager {
  readonly #byUid = new Map<string, Pod>();
  readonly #byFullName = new Map<string, Pod>();
  readonly #mirrorByFullName = new Map<string, Pod>();
  readonly #mirrorByUid = new Map<string, Pod>();

  /** add or replace a pod (a mirror pod goes to the mirror tables) */
  addOrUpdate(pod: Pod): void {
    if (isMirrorPod(pod)) {
      const old = this.#mirrorByFullName.get(podFullName(pod));
      if (old) this.#mirrorByUid.delete(podUid(old));
      this.#mirrorByFullName.set(podFullName(pod), pod);
      this.#mirrorByUid.set(podUid(pod), pod);
      return;
    }
    this.#byUid.set(podUid(pod), pod);
    this.#byFullName.set(podFullName(pod), pod);
  }

  delete(pod: Pod): void {
    if (isMirrorPod(pod)) {
      const current = this.#mirrorByFullName.get(podFullName(pod));
      if (current && podUid(current) === podUid(pod)) this.#mirrorByFullName.delete(podFullName(pod));
      this.#mirrorByUid.delete(podUid(pod));
      return;
    }
    this.#byUid.delete(podUid(pod));
    const current = this.#byFullName.get(podFullName(pod));
    if (current && podUid(current) === podUid(pod)) this.#byFullName.delete(podFullName(pod));
  }

  /** every pod to run (mirror pods excluded) */
  pods(): Pod[] {
    return [...this.#byUid.values()];
  }

  byUid(uid: string): Pod | undefined {
    return this.#byUid.get(uid);
  }

  byFullName(fullName: string): Pod | undefined {
    return this.#byFullName.get(fullName);
  }

  mirrorOf(pod: Pod): Pod | undefined {
    return this.#mirrorByFullName.get(podFullName(pod));
  }

  /** the static pod a mirror pod stands for */
  podOfMirror(mirror: Pod): Pod | undefined {
    return this.#byFullName.get(podFullName(mirror));
  }

  isMirrorPodUid(uid: string): boolean {
    return this.#mirrorByUid.has(uid);
  }

  /** mirror pods whose static pod is gone (kubelet's GetOrphanedMirrorPodNames) */
  orphanedMirrorPods(): Pod[] {
    return [...this.#mirrorByFullName.entries()].filter(([name]) => !this.#byFullName.has(name)).map(([, m]) => m);
  }
}

/** whether a mirror pod reflects this version of its static pod (kubelet's IsMirrorPodOf) */
export function isMirrorPodOf(mirror: Pod, pod: Pod): boolean {
  if (podFullName(mirror) !== podFullName(pod)) return false;
  return mirror.metadata?.annotations?.[CONFIG_MIRROR] === staticPodHash(pod);
}
