/**
 * Reading the claims, volumes and classes the volume plugins need from the scheduler's listers,
 * with the API server's NotFound wording for a missing object.
 */
import { RESOURCES } from '../../../client/resources';
import type { KubeObject } from '../../../client/types';
import type { FrameworkHandle } from '../../framework/types';

export const WAIT_FOR_FIRST_CONSUMER = 'WaitForFirstConsumer';

export interface StorageClassShape {
  provisioner?: string;
  volumeBindingMode?: string;
  allowedTopologies?: Array<{ matchLabelExpressions?: Array<{ key?: string; values?: string[] }> }>;
}

/** kube's lister NotFound error text, e.g. `persistentvolumeclaim "data" not found` */
export const notFound = (resource: string, name: string): string => `${resource} "${name}" not found`;

export interface VolumeListers {
  claim(namespace: string, name: string): KubeObject | undefined;
  volume(name: string): KubeObject | undefined;
  storageClass(name: string): (KubeObject & StorageClassShape) | undefined;
  csiNode(name: string): KubeObject | undefined;
}

export function volumeListers(handle: FrameworkHandle): VolumeListers {
  const claims = handle.lister(RESOURCES.persistentVolumeClaims);
  const volumes = handle.lister(RESOURCES.persistentVolumes);
  const classes = handle.lister(RESOURCES.storageClasses);
  const csiNodes = handle.lister(RESOURCES.csiNodes);
  return {
    claim: (namespace, name) => claims.getObject(namespace, name),
    volume: (name) => volumes.getObject(undefined, name),
    storageClass: (name) => classes.getObject(undefined, name) as (KubeObject & StorageClassShape) | undefined,
    csiNode: (name) => csiNodes.getObject(undefined, name),
  };
}
