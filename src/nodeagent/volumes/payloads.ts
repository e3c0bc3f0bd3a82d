/**
 * The files of configMap, secret, downwardAPI and projected volumes (kube's MakePayload of each
 * plugin and downwardapi.CollectData): key -> path with its mode; items select keys and rename
 * them, a key an item names must exist unless the source is optional.
 */
import * as path from 'path';
import type { KubeObject } from '../../client/types';
import { containerResourceValue, objectFieldValue, withDefaultLimits } from '../env/field-path';
import type { Pod } from '../types';
import type { FileProjection, Payload } from './atomic-writer';

/** the API's default for defaultMode (0644) */
export const DEFAULT_MODE = 0o644;

export interface KeyToPath { key: string; path: string; mode?: number }
export interface DownwardAPIFile {
  path: string;
  mode?: number;
  fieldRef?: { fieldPath: string };
  resourceFieldRef?: { containerName?: string; resource: string; divisor?: unknown };
}

function keyed(kind: 'configmap' | 'secret', data: Map<string, Buffer>, items: KeyToPath[] | undefined, defaultMode: number, optional: boolean): Payload {
  const out: Payload = new Map();
  if (!items || items.length === 0) {
    for (const [k, v] of data) out.set(k, { data: v, mode: defaultMode });
    return out;
  }
  for (const item of items) {
    const value = data.get(item.key);
    if (value === undefined) {
      if (optional) continue;
      throw new Error(kind === 'configmap' ? `configmap references non-existent config key: ${item.key}` : `references non-existent secret key: ${item.key}`);
    }
    out.set(item.path, { data: value, mode: item.mode ?? defaultMode });
  }
  return out;
}

export function configMapPayload(cm: KubeObject, items: KeyToPath[] | undefined, defaultMode: number, optional: boolean): Payload {
  const data = new Map<string, Buffer>();
  for (const [k, v] of Object.entries((cm.data ?? {}) as Record<string, string>)) data.set(k, Buffer.from(v));
  for (const [k, v] of Object.entries((cm.binaryData ?? {}) as Record<string, string>)) data.set(k, Buffer.from(v, 'base64'));
  return keyed('configmap', data, items, defaultMode, optional);
}

export function secretPayload(secret: KubeObject, items: KeyToPath[] | undefined, defaultMode: number, optional: boolean): Payload {
  const data = new Map<string, Buffer>();
  for (const [k, v] of Object.entries((secret.data ?? {}) as Record<string, string>)) data.set(k, Buffer.from(v, 'base64'));
  return keyed('secret', data, items, defaultMode, optional);
}

export function downwardAPIPayload(pod: Pod, items: DownwardAPIFile[], defaultMode: number, allocatable: Record<string, unknown>): Payload {
  const out: Payload = new Map();
  const errors: string[] = [];
  for (const item of items) {
    const file: FileProjection = { data: Buffer.alloc(0), mode: item.mode ?? defaultMode };
    try {
      if (item.fieldRef) {
        file.data = Buffer.from(objectFieldValue(pod, item.fieldRef.fieldPath));
      } else if (item.resourceFieldRef) {
        const ref = item.resourceFieldRef;
        const containers = [...((pod.spec?.containers ?? []) as Record<string, unknown>[]), ...((pod.spec?.initContainers ?? []) as Record<string, unknown>[])];
        const container = containers.find((c) => c.name === ref.containerName);
        if (!container) throw new Error(`cannot find container with name ${ref.containerName ?? ''}`);
        file.data = Buffer.from(containerResourceValue(ref.resource, ref.divisor, withDefaultLimits(container, allocatable)));
      }
    } catch (err) {
      errors.push((err as Error).message);
      continue;
    }
    out.set(path.posix.normalize(item.path), file);
  }
  if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  return out;
}
