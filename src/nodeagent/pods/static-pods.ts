/**
 * Pods from manifests (kubelet's config/common.go): the defaults a static pod gets before it joins
 * the other sources. The UID is an md5 over the node and the manifest's location and content, as
 * kubelet hashes host, source and the decoded pod; our hash covers the manifest's JSON form rather
 * than Go's in-memory struct, so it is stable across restarts but not equal to a kubelet's.
 */
import { createHash } from 'node:crypto';
import yaml from 'js-yaml';
import type { Pod } from '../types';
import { CONFIG_HASH } from './annotations';

export interface StaticPodSource {
  nodeName: string;
  /** `file` for --pod-manifest-path, `http` for --manifest-url */
  kind: 'file' | 'http';
  /** the file's path or the URL */
  location: string;
}

/** the documents of a manifest file or response: one pod per document, or a PodList's items */
export function decodeManifest(text: string): Pod[] {
  const pods: Pod[] = [];
  for (const doc of yaml.loadAll(text)) {
    if (doc === null || doc === undefined) continue;
    if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error('the manifest is not an object');
    const obj = doc as Pod & { items?: Pod[] };
    if (obj.kind === 'PodList' || Array.isArray(obj.items)) {
      for (const item of obj.items ?? []) pods.push(checkPod(item));
    } else {
      pods.push(checkPod(obj));
    }
  }
  return pods;
}

function checkPod(obj: Pod): Pod {
  if (obj.kind !== undefined && obj.kind !== 'Pod') throw new Error(`the manifest holds a ${obj.kind}, not a Pod`);
  if (!obj.metadata?.name) throw new Error('the pod manifest has no metadata.name');
  const containers = obj.spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) throw new Error(`pod ${obj.metadata.name}: spec.containers is required`);
  return obj;
}

/** kubelet's applyDefaults: name, namespace, UID, node name, config.hash, the NoExecute toleration, Pending */
export function applyStaticPodDefaults(manifest: Pod, source: StaticPodSource): Pod {
  const pod = structuredClone(manifest);
  pod.apiVersion = 'v1';
  pod.kind = 'Pod';
  const meta = (pod.metadata ??= {});
  const hash = createHash('md5');
  if (source.kind === 'file') {
    hash.update(`host:${source.nodeName}`);
    hash.update(`file:${source.location}`);
  } else {
    hash.update(`url:${source.location}`);
  }
  hash.update(JSON.stringify(manifest));
  meta.uid = hash.digest('hex');
  meta.name = `${meta.name}-${source.nodeName.toLowerCase()}`;
  if (!meta.namespace) meta.namespace = 'default';
  const spec = (pod.spec ??= {});
  spec.nodeName = source.nodeName;
  meta.annotations = { ...(meta.annotations ?? {}), [CONFIG_HASH]: meta.uid };
  if (source.kind === 'file') {
    // static pods tolerate every NoExecute taint, so node problems never evict them
    const tolerations = (Array.isArray(spec.tolerations) ? spec.tolerations : []) as Record<string, unknown>[];
    const wanted = { operator: 'Exists', effect: 'NoExecute' };
    if (!tolerations.some((t) => t.operator === 'Exists' && t.effect === 'NoExecute' && !t.key)) tolerations.push(wanted);
    spec.tolerations = tolerations;
  }
  pod.status = { phase: 'Pending' };
  return pod;
}
