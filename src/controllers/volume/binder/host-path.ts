/**
 * The host-path volume plugin as kube's controller manager uses it (pkg/volume/host_path): a
 * provisioner (only with --enable-hostpath-provisioner: a directory under /tmp/hostpath_pv on the
 * controller manager's own host, for single-node clusters), a deleter (only for paths under /tmp/),
 * and a recycler that scrubs the directory with a pod.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import yaml from 'js-yaml';
import type { KubeObject } from '../../../client/types';
import { ANN_BOUND_BY_CONTROLLER, ANN_DYNAMICALLY_PROVISIONED, claimSpec, volumeSpec } from '../volume-util';

export const HOST_PATH_PLUGIN = 'kubernetes.io/host-path';

/** the directory kube's host-path provisioner creates its volumes in */
export const HOST_PATH_BASE = '/tmp/hostpath_pv';

/** kube's deleter accepts only paths under /tmp/ (anchored here, so nothing outside /tmp is removed) */
const DELETABLE_PATH = /^\/tmp\/.+/;

/** kube's NewPersistentVolumeRecyclerPodTemplate: a pod named by the recycler, scrubbing the volume "vol" */
export function defaultRecyclerPodTemplate(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'pv-recycler-', namespace: 'default' },
    spec: {
      activeDeadlineSeconds: 60,
      restartPolicy: 'Never',
      volumes: [{ name: 'vol' }],
      containers: [
        {
          name: 'pv-recycler',
          image: 'busybox:1.27',
          command: ['/bin/sh'],
          args: ['-c', 'test -e /scrub && rm -rf /scrub/..?* /scrub/.[!.]* /scrub/*  && test -z "$(ls -A /scrub)" || exit 1'],
          volumeMounts: [{ name: 'vol', mountPath: '/scrub' }],
        },
      ],
    },
  };
}

/** --pv-recycler-pod-template-filepath-hostpath: a pod manifest (YAML or JSON) replacing the default */
export async function loadRecyclerPodTemplate(file: string | undefined): Promise<KubeObject> {
  if (!file) return defaultRecyclerPodTemplate();
  const pod = yaml.load(await readFile(file, 'utf8')) as KubeObject;
  const volumes = (pod?.spec as { volumes?: unknown[] } | undefined)?.volumes;
  if (!volumes?.length) throw new Error(`recycler pod template ${file} has no volume (the scrubbed volume must be the first)`);
  return pod;
}

/**
 * The pod that recycles a host-path volume: the template, named `recycler-for-<pv>`, its first
 * volume the host path, its deadline the volume's timeout (kube's RecycleVolumeByWatchingPodUntilCompletion).
 */
export function recyclerPod(template: KubeObject, pv: KubeObject, timeoutSeconds: number): KubeObject {
  const pod = structuredClone(template);
  const { generateName: _unused, ...meta } = pod.metadata ?? {};
  pod.metadata = { ...meta, name: recyclerPodName(pv.metadata?.name ?? ''), namespace: meta.namespace || 'default' };
  const spec = (pod.spec ?? {}) as { volumes: { name: string; [k: string]: unknown }[]; activeDeadlineSeconds?: number };
  spec.volumes[0] = { name: spec.volumes[0]!.name, hostPath: { path: volumeSpec(pv).hostPath?.path } };
  spec.activeDeadlineSeconds = timeoutSeconds;
  pod.spec = spec;
  return pod;
}

export const recyclerPodName = (pvName: string): string => `recycler-for-${pvName}`;

export interface ProvisionInput {
  pvName: string;
  claim: KubeObject;
  storageClass: KubeObject;
  claimRef: Record<string, unknown>;
}

/**
 * A new host-path volume for a claim (kube's hostPathProvisioner.Provision plus what the controller
 * adds: the claimRef, bound-by-controller, provisioned-by and the class). The
 * directory is created on this host, as kube's does.
 */
export async function provisionHostPath(input: ProvisionInput): Promise<KubeObject> {
  const spec = claimSpec(input.claim);
  if (spec.volumeMode === 'Block') throw new Error(`${HOST_PATH_PLUGIN} does not support block volume provisioning`);
  const path = `${HOST_PATH_BASE}/${randomUUID()}`;
  const sc = input.storageClass as KubeObject & { reclaimPolicy?: string };
  const pv: KubeObject = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: input.pvName,
      annotations: {
        'kubernetes.io/createdby': 'hostpath-dynamic-provisioner',
        [ANN_BOUND_BY_CONTROLLER]: 'yes',
        [ANN_DYNAMICALLY_PROVISIONED]: HOST_PATH_PLUGIN,
      },
    },
    spec: {
      persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
      accessModes: spec.accessModes ?? [],
      capacity: { storage: spec.resources?.requests?.storage },
      hostPath: { path },
      claimRef: input.claimRef,
      storageClassName: sc.metadata?.name,
      ...(spec.volumeMode ? { volumeMode: spec.volumeMode } : {}),
    },
  };
  await mkdir(path, { recursive: true, mode: 0o750 });
  return pv;
}

/** kube's host-path deleter: remove the directory, refusing paths outside /tmp/ */
export async function deleteHostPath(pv: KubeObject): Promise<void> {
  const path = volumeSpec(pv).hostPath?.path ?? '';
  if (!DELETABLE_PATH.test(path)) throw new Error(`host_path deleter only supports /tmp/.+ but received provided ${path}`);
  await rm(path, { recursive: true, force: true });
}
