/**
 * VolumeZone (kube 1.20): a pod's bound PersistentVolumes carry zone and region labels, and a node
 * that has such labels must be in one of the volume's zones (a value may list several, joined by
 * `__`). Claims not yet bound in a WaitForFirstConsumer class are skipped: VolumeBinding places them.
 */
import type { KubeObject } from '../../../client/types';
import { claimClass } from '../../../controllers/volume/volume-util';
import type { NodeInfo } from '../../framework/node-info';
import { Code, Status, unresolvable, type Result } from '../../framework/status';
import type { CycleState, FrameworkHandle, Plugin, PluginFactory, StateData } from '../../framework/types';
import { notFound, volumeListers, WAIT_FOR_FIRST_CONSUMER, type VolumeListers } from './claims';
import { podVolumes } from './pod-volumes';

export const VOLUME_ZONE = 'VolumeZone';
export const ERR_REASON_VOLUME_ZONE_CONFLICT = 'node(s) had no available volume zone';

export const ZONE_LABELS: readonly string[] = [
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
];

/** what one bound volume demands: label key -> the zones it allows */
type Constraint = Array<{ key: string; zones: ReadonlySet<string> }>;

/** the pod's volumes' constraints, worked out once a cycle (they do not depend on the node) */
class ZoneState implements StateData {
  constructor(readonly constraints: Constraint[], readonly error?: Status) {}
  clone(): StateData {
    return this;
  }
}

const stateKey = `${VOLUME_ZONE}/constraints`;

/** kube's LabelZonesToSet; undefined when a zone is empty (the label is then ignored) */
function zonesOf(value: string): Set<string> | undefined {
  const zones = new Set<string>();
  for (const z of value.split('__')) {
    const zone = z.trim();
    if (zone === '') return undefined;
    zones.add(zone);
  }
  return zones;
}

function constraintsOf(pod: KubeObject, listers: VolumeListers): ZoneState {
  const fail = (message: string) => new ZoneState([], new Status(Code.Error, [message]));
  const out: Constraint[] = [];
  const namespace = pod.metadata?.namespace ?? '';
  for (const v of podVolumes(pod)) {
    if (!v.persistentVolumeClaim) continue;
    const claimName = v.persistentVolumeClaim.claimName ?? '';
    if (claimName === '') return fail('PersistentVolumeClaim had no name');
    const pvc = listers.claim(namespace, claimName);
    if (!pvc) return fail(notFound('persistentvolumeclaim', claimName));
    const pvName = (pvc.spec as { volumeName?: string } | undefined)?.volumeName ?? '';
    if (pvName === '') {
      const className = claimClass(pvc);
      if (className === '') return fail('PersistentVolumeClaim had no pv name and storageClass name');
      const cls = listers.storageClass(className);
      if (!cls) return fail(`StorageClass "${className}" claimed by PersistentVolumeClaim "${claimName}" not found`);
      if (!cls.volumeBindingMode) return fail(`VolumeBindingMode not set for StorageClass "${className}"`);
      if (cls.volumeBindingMode === WAIT_FOR_FIRST_CONSUMER) continue;
      return fail('PersistentVolume had no name');
    }
    const pv = listers.volume(pvName);
    if (!pv) return fail(notFound('persistentvolume', pvName));
    const constraint: Constraint = [];
    for (const [key, value] of Object.entries(pv.metadata?.labels ?? {})) {
      if (!ZONE_LABELS.includes(key)) continue;
      const zones = zonesOf(value);
      if (zones) constraint.push({ key, zones });
    }
    if (constraint.length > 0) out.push(constraint);
  }
  return new ZoneState(out);
}

export const newVolumeZone: PluginFactory = (_args: unknown, handle: FrameworkHandle): Plugin => {
  const listers = volumeListers(handle);
  return {
    name: VOLUME_ZONE,
    filter(state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): Result {
      if (podVolumes(pod).length === 0) return undefined;
      if (!nodeInfo.node) return new Status(Code.Error, ['node not found']);
      const labels = nodeInfo.node.metadata?.labels ?? {};
      // a node without zone labels fits any volume
      if (!ZONE_LABELS.some((k) => k in labels)) return undefined;
      let zs = state.read<ZoneState>(stateKey);
      if (!zs) state.write(stateKey, (zs = constraintsOf(pod, listers)));
      if (zs.error) return zs.error;
      for (const constraint of zs.constraints) {
        for (const { key, zones } of constraint) {
          if (!zones.has(labels[key] ?? '')) return unresolvable(ERR_REASON_VOLUME_ZONE_CONFLICT);
        }
      }
      return undefined;
    },
  };
};
