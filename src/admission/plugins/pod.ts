/** the parts of a pod the plugins read and change, loosely typed (the object is checked by validation) */
import type { KubeObject } from '../../api/kind';
import type { AdmissionAttributes } from '../types';
import { isResource } from '../forbidden';

export type ResourceList = Record<string, string | number>;

export interface Container {
  name?: string;
  image?: string;
  imagePullPolicy?: string;
  resources?: { limits?: ResourceList; requests?: ResourceList };
  volumeMounts?: Array<{ name?: string; mountPath?: string; readOnly?: boolean }>;
  securityContext?: Record<string, unknown>;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface PodSpec {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Array<Record<string, unknown> & { name?: string }>;
  imagePullSecrets?: Array<{ name?: string }>;
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: string;
  tolerations?: Toleration[];
  nodeSelector?: Record<string, string>;
  runtimeClassName?: string;
  overhead?: ResourceList;
  affinity?: Record<string, unknown>;
  securityContext?: Record<string, unknown>;
}

export function podSpec(obj: KubeObject): PodSpec {
  if (typeof obj.spec !== 'object' || obj.spec === null) obj.spec = {};
  return obj.spec as PodSpec;
}

/** the pod of a CREATE of the pods resource itself, else undefined */
export function createdPod(a: AdmissionAttributes): KubeObject | undefined {
  return a.operation === 'CREATE' && isResource(a, '', 'pods') && a.object ? a.object : undefined;
}

/** every container of the spec: containers, then init containers */
export function allContainers(spec: PodSpec): Container[] {
  return [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])];
}
