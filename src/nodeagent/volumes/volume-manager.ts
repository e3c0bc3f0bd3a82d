/**
 * The node agent's volume manager (kubelet's volumemanager, reduced to the plugins a single node
 * without attach/detach needs): mountPod materialises every volume of a pod under
 * <root-dir>/pods/<uid>/volumes/kubernetes.io~<plugin>/<name> (hostPath and PVC volumes point at
 * the host path instead), resync rewrites the volumes whose contents come from API objects or the
 * pod itself, unmountPod and cleanupOrphanedPods remove pod directories.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Logger } from 'pino';
import type { KubeObject } from '../../client/types';
import type { ObjectSources, Recorder } from '../env/sources';
import type { Pod } from '../types';
import { AtomicWriter, type Payload } from './atomic-writer';
import { checkHostPathType } from './host-path';
import { SystemMounter, type Mounter } from './mounter';
import { configMapPayload, DEFAULT_MODE, downwardAPIPayload, secretPayload, type DownwardAPIFile, type KeyToPath } from './payloads';
import { ServiceAccountTokenManager } from './token-manager';

/** a volume ready to be bind-mounted into containers */
export interface MountedVolume {
  name: string;
  /** emptyDir, configMap, secret, downwardAPI, projected, hostPath, persistentVolumeClaim */
  type: string;
  hostPath: string;
  /** the volume itself is read-only (configMap, secret, downwardAPI, projected; readOnly claims) */
  readOnly: boolean;
}

export interface VolumeManagerOptions {
  rootDir: string;
  sources: ObjectSources;
  recorder?: Recorder;
  /** the node's allocatable resources, for downward API resource items */
  allocatable?: () => Record<string, unknown>;
  tokens?: ServiceAccountTokenManager;
  mounter?: Mounter;
  logger?: Logger;
}

type Volume = Record<string, unknown> & { name: string };
interface ObjectSource { name?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean }
interface ProjectedSource {
  configMap?: ObjectSource;
  secret?: ObjectSource;
  downwardAPI?: { items?: DownwardAPIFile[] };
  serviceAccountToken?: { audience?: string; expirationSeconds?: number; path: string };
}

/** plugin folder names, kube's `kubernetes.io~<plugin>` */
const PLUGIN_DIRS: Record<string, string> = {
  emptyDir: 'kubernetes.io~empty-dir',
  configMap: 'kubernetes.io~configmap',
  secret: 'kubernetes.io~secret',
  downwardAPI: 'kubernetes.io~downward-api',
  projected: 'kubernetes.io~projected',
};
/** the volumes whose files the agent writes, rewritten by resync */
const CONTENT_TYPES = new Set(['configMap', 'secret', 'downwardAPI', 'projected']);
const SUPPORTED = ['emptyDir', 'configMap', 'secret', 'downwardAPI', 'projected', 'hostPath', 'persistentVolumeClaim'];

export function volumeType(v: Volume): string | undefined {
  return SUPPORTED.find((t) => v[t] !== undefined && v[t] !== null);
}

export class VolumeManager {
  readonly rootDir: string;
  readonly #sources: ObjectSources;
  readonly #recorder?: Recorder;
  readonly #allocatable: () => Record<string, unknown>;
  readonly #tokens: ServiceAccountTokenManager;
  readonly #mounter: Mounter;
  readonly #logger?: Logger;
  /** pods mounted, by uid: the newest pod object and its volumes */
  readonly #pods = new Map<string, { pod: Pod; volumes: Map<string, MountedVolume> }>();

  constructor(opts: VolumeManagerOptions) {
    this.rootDir = opts.rootDir;
    this.#sources = opts.sources;
    this.#recorder = opts.recorder;
    this.#allocatable = opts.allocatable ?? (() => ({}));
    this.#tokens = opts.tokens ?? new ServiceAccountTokenManager({ sources: opts.sources });
    this.#mounter = opts.mounter ?? new SystemMounter();
    this.#logger = opts.logger;
  }

  getPodDir(uid: string): string {
    return path.join(this.rootDir, 'pods', uid);
  }

  /** the volumes mountPod made for a pod, by volume name; undefined before the first mountPod */
  getMountedVolumes(uid: string): Map<string, MountedVolume> | undefined {
    return this.#pods.get(uid)?.volumes;
  }

  /**
   * Makes every volume of the pod ready (idempotent: workers call it on every sync). Throws the
   * first failure as kube words it (`MountVolume.SetUp failed for volume "x" : configmap "y" not
   * found`), after a FailedMount event for each failed volume.
   */
  async mountPod(pod: Pod): Promise<Map<string, MountedVolume>> {
    const uid = pod.metadata?.uid ?? '';
    const entry = this.#pods.get(uid) ?? { pod, volumes: new Map<string, MountedVolume>() };
    entry.pod = pod;
    this.#pods.set(uid, entry);
    fs.mkdirSync(path.join(this.getPodDir(uid), 'volumes'), { recursive: true, mode: 0o750 });
    const errors: string[] = [];
    for (const v of (pod.spec?.volumes ?? []) as Volume[]) {
      try {
        entry.volumes.set(v.name, await this.#setUp(pod, v));
      } catch (err) {
        const message = `MountVolume.SetUp failed for volume "${v.name}" : ${(err as Error).message}`;
        this.#recorder?.event(pod, 'Warning', 'FailedMount', message);
        errors.push(message);
      }
    }
    if (errors.length > 0) throw new Error(errors[0]);
    return entry.volumes;
  }

  volumeDir(uid: string, type: string, name: string): string {
    return path.join(this.getPodDir(uid), 'volumes', PLUGIN_DIRS[type], name);
  }

  async #setUp(pod: Pod, v: Volume): Promise<MountedVolume> {
    const uid = pod.metadata?.uid ?? '';
    const type = volumeType(v);
    if (!type) throw new Error(`volume "${v.name}" has a source this node agent does not support`);
    if (type === 'hostPath') {
      const src = v.hostPath as { path: string; type?: string };
      checkHostPathType(src.path, src.type);
      return { name: v.name, type, hostPath: src.path, readOnly: false };
    }
    if (type === 'persistentVolumeClaim') return this.#claim(pod, v);
    const dir = this.volumeDir(uid, type, v.name);
    if (type === 'emptyDir') {
      await this.#emptyDir(dir, (v.emptyDir as { medium?: string }).medium ?? '');
      return { name: v.name, type, hostPath: dir, readOnly: false };
    }
    const payload = await this.#payload(pod, type, v);
    new AtomicWriter(dir).write(payload);
    return { name: v.name, type, hostPath: dir, readOnly: true };
  }

  async #emptyDir(dir: string, medium: string): Promise<void> {
    const existed = fs.existsSync(dir);
    fs.mkdirSync(dir, { recursive: true });
    if (!existed) fs.chmodSync(dir, 0o777);
    if (medium !== 'Memory') return;
    if (this.#mounter.mountPointsUnder(dir).includes(dir)) return;
    if (!this.#mounter.canMount()) {
      this.#logger?.info({ dir }, 'emptyDir medium Memory: cannot mount tmpfs (not root), using a plain directory');
      return;
    }
    try {
      await this.#mounter.mountTmpfs(dir);
      fs.chmodSync(dir, 0o777);
    } catch (err) {
      this.#logger?.info({ dir, err: (err as Error).message }, 'emptyDir medium Memory: tmpfs mount failed, using a plain directory');
    }
  }

  async #claim(pod: Pod, v: Volume): Promise<MountedVolume> {
    const ns = pod.metadata?.namespace ?? '';
    const src = v.persistentVolumeClaim as { claimName: string; readOnly?: boolean };
    const claim = await this.#sources.getPersistentVolumeClaim(ns, src.claimName);
    if (!claim) throw new Error(`persistentvolumeclaim "${src.claimName}" not found`);
    const volumeName = ((claim.spec ?? {}) as { volumeName?: string }).volumeName ?? '';
    const phase = ((claim.status ?? {}) as { phase?: string }).phase ?? '';
    if (phase !== 'Bound' || volumeName === '') {
      throw new Error(`PVC ${ns}/${src.claimName} has non-bound phase ("${phase}") or empty pvc.Spec.VolumeName ("${volumeName}")`);
    }
    const pv = await this.#sources.getPersistentVolume(volumeName);
    if (!pv) throw new Error(`persistentvolume "${volumeName}" not found`);
    const pvSpec = (pv.spec ?? {}) as { hostPath?: { path: string; type?: string }; local?: { path: string }; claimRef?: { uid?: string } };
    if (pvSpec.claimRef?.uid && claim.metadata?.uid && pvSpec.claimRef.uid !== claim.metadata.uid) {
      throw new Error(`PV "${volumeName}" is bound to another claim (claimRef.UID ${pvSpec.claimRef.uid}, PVC UID ${claim.metadata.uid})`);
    }
    let hostPath: string;
    if (pvSpec.hostPath) {
      checkHostPathType(pvSpec.hostPath.path, pvSpec.hostPath.type);
      hostPath = pvSpec.hostPath.path;
    } else if (pvSpec.local) {
      if (!fs.existsSync(pvSpec.local.path)) throw new Error(`path "${pvSpec.local.path}" does not exist`);
      hostPath = pvSpec.local.path;
    } else {
      throw new Error(`PV "${volumeName}" is neither hostPath nor local, the only kinds this node agent mounts`);
    }
    return { name: v.name, type: 'persistentVolumeClaim', hostPath, readOnly: src.readOnly === true };
  }

  async #object(kind: 'configmap' | 'secret', ns: string, name: string, optional: boolean): Promise<KubeObject | undefined> {
    const obj = kind === 'configmap' ? await this.#sources.getConfigMap(ns, name) : await this.#sources.getSecret(ns, name);
    if (!obj && !optional) throw new Error(`${kind} "${name}" not found`);
    return obj;
  }

  async #payload(pod: Pod, type: string, v: Volume): Promise<Payload> {
    const ns = pod.metadata?.namespace ?? '';
    if (type === 'configMap' || type === 'secret') {
      const src = v[type] as ObjectSource & { secretName?: string };
      const name = (type === 'secret' ? src.secretName : src.name) ?? '';
      const obj = await this.#object(type === 'configMap' ? 'configmap' : 'secret', ns, name, src.optional === true);
      if (!obj) return new Map();
      const mode = src.defaultMode ?? DEFAULT_MODE;
      return type === 'configMap' ? configMapPayload(obj, src.items, mode, src.optional === true) : secretPayload(obj, src.items, mode, src.optional === true);
    }
    if (type === 'downwardAPI') {
      const src = v.downwardAPI as { items?: DownwardAPIFile[]; defaultMode?: number };
      return downwardAPIPayload(pod, src.items ?? [], src.defaultMode ?? DEFAULT_MODE, this.#allocatable());
    }
    const src = v.projected as { sources?: ProjectedSource[]; defaultMode?: number };
    const mode = src.defaultMode ?? DEFAULT_MODE;
    const out: Payload = new Map();
    const errors: string[] = [];
    for (const s of src.sources ?? []) {
      try {
        let part: Payload = new Map();
        if (s.configMap) {
          const obj = await this.#object('configmap', ns, s.configMap.name ?? '', s.configMap.optional === true);
          if (obj) part = configMapPayload(obj, s.configMap.items, mode, s.configMap.optional === true);
        } else if (s.secret) {
          const obj = await this.#object('secret', ns, s.secret.name ?? '', s.secret.optional === true);
          if (obj) part = secretPayload(obj, s.secret.items, mode, s.secret.optional === true);
        } else if (s.downwardAPI) {
          part = downwardAPIPayload(pod, s.downwardAPI.items ?? [], mode, this.#allocatable());
        } else if (s.serviceAccountToken) {
          const t = s.serviceAccountToken;
          const token = await this.#tokens.getToken(ns, (pod.spec?.serviceAccountName as string | undefined) || 'default', {
            audiences: t.audience ? [t.audience] : [],
            expirationSeconds: t.expirationSeconds ?? 3600,
            boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
          });
          part.set(t.path, { data: Buffer.from(token), mode });
        }
        for (const [k, f] of part) out.set(k, f);
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
    return out;
  }

  /**
   * Rewrites the configMap, secret, downwardAPI and projected volumes of every mounted pod from
   * their sources now (kubelet remounts them on each pod sync); unchanged contents are left alone.
   * A failing volume keeps its old files and is logged.
   */
  async resync(): Promise<void> {
    for (const { pod, volumes } of this.#pods.values()) {
      for (const v of (pod.spec?.volumes ?? []) as Volume[]) {
        const type = volumeType(v);
        if (!type || !CONTENT_TYPES.has(type)) continue;
        try {
          const payload = await this.#payload(pod, type, v);
          const dir = this.volumeDir(pod.metadata?.uid ?? '', type, v.name);
          new AtomicWriter(dir).write(payload);
          volumes.set(v.name, { name: v.name, type, hostPath: dir, readOnly: true });
        } catch (err) {
          this.#logger?.warn({ pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, volume: v.name, err: (err as Error).message }, 'volume resync failed');
        }
      }
    }
  }

  /** unmounts what the agent mounted under the pod's directory, then removes it */
  async unmountPod(uid: string): Promise<void> {
    this.#pods.delete(uid);
    this.#tokens.deletePodTokens(uid);
    const dir = this.getPodDir(uid);
    for (const point of this.#mounter.mountPointsUnder(dir)) await this.#mounter.unmount(point);
    // a mount left in place (unmount failed) must not be emptied through the directory
    if (this.#mounter.mountPointsUnder(dir).length > 0) throw new Error(`pod directory ${dir} still has mounts`);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  /** removes the directories of pods not in `activeUids` (kubelet's cleanupOrphanedPodDirs); returns their uids */
  async cleanupOrphanedPods(activeUids: Set<string>): Promise<string[]> {
    let uids: string[];
    try {
      uids = fs.readdirSync(path.join(this.rootDir, 'pods'));
    } catch {
      return [];
    }
    const removed: string[] = [];
    for (const uid of uids) {
      if (activeUids.has(uid)) continue;
      try {
        await this.unmountPod(uid);
        removed.push(uid);
      } catch (err) {
        this.#logger?.warn({ uid, err: (err as Error).message }, 'orphaned pod directory not removed');
      }
    }
    return removed;
  }
}
