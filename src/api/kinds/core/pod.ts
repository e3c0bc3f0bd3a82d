/** core/v1 Pod: kube's pod strategy, defaults, validation, QoS class, field labels and table */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { forbidden } from '../../validation/field-errors';
import { defaultPodOnly, defaultPodSpec, POD_RESTART_POLICIES, validatePodSpec } from '../pod-template';
import { arrAt, ensureObj, isObj, objAt, str } from '../util';
import type { Obj } from '../util';
import { podActionSubresources } from './pod-subresources';
import { podTable } from './pod-table';
import { validatePodUpdate } from './pod-update';
import { podConnectSubresources } from './connect-subresources';

/** kube's qos.GetPodQOS for the common resources (cpu and memory) */
export function podQOSClass(pod: KubeObject): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const spec = objAt(pod, 'spec') ?? {};
  const containers = [...arrAt(spec, 'containers'), ...arrAt(spec, 'initContainers')].filter(isObj);
  let anyResource = false;
  let guaranteed = true;
  for (const c of containers) {
    const requests = objAt(objAt(c, 'resources'), 'requests') ?? {};
    const limits = objAt(objAt(c, 'resources'), 'limits') ?? {};
    for (const r of ['cpu', 'memory']) {
      if (requests[r] !== undefined || limits[r] !== undefined) anyResource = true;
      const request = requests[r] ?? limits[r];
      if (limits[r] === undefined || String(request) !== String(limits[r])) guaranteed = false;
    }
  }
  if (!anyResource) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function validatePod(pod: KubeObject, old?: KubeObject): StatusCause[] {
  const causes = validatePodSpec(pod.spec, 'spec', { restartPolicies: POD_RESTART_POLICIES });
  if (old) causes.push(...validatePodUpdate(pod as Obj, old as Obj));
  return causes;
}

/** kube forbids leaving a terminal phase */
function validatePodStatus(pod: KubeObject, old: KubeObject): StatusCause[] {
  const phase = str(objAt(pod, 'status')?.phase);
  const oldPhase = str(objAt(old, 'status')?.phase);
  if ((oldPhase === 'Succeeded' || oldPhase === 'Failed') && phase !== oldPhase) {
    return [forbidden('status.phase', `cannot transition from ${oldPhase} to ${phase || '""'}`)];
  }
  return [];
}

export function podKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'Pod',
    listKind: 'PodList',
    resource: 'pods',
    singular: 'pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    storage: { group: '', resource: 'pods' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.Pod',
    tracksGeneration: false,
    statusSubresource: true,
    strategy: {
      defaults(obj) {
        const spec = ensureObj(obj, 'spec');
        defaultPodSpec(spec);
        defaultPodOnly(spec);
      },
      prepareForCreate(obj) {
        // kube's podStrategy.PrepareForCreate: status starts Pending with the computed QoS class
        const status: Obj = { phase: 'Pending', qosClass: podQOSClass(obj) };
        if (arrAt(obj.spec, 'schedulingGates').length > 0) {
          status.conditions = [
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'SchedulingGated',
              message: 'Scheduling is blocked due to non-empty scheduling gates',
              lastProbeTime: null,
              lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
            },
          ];
        }
        obj.status = status;
      },
      validate: validatePod,
      validateStatus: validatePodStatus,
    },
    watchTriggerField: 'spec.nodeName',
    selectableFields(obj) {
      const spec = objAt(obj, 'spec') ?? {};
      const status = objAt(obj, 'status') ?? {};
      const podIPs = arrAt(status, 'podIPs');
      return {
        'spec.nodeName': str(spec.nodeName),
        'spec.restartPolicy': str(spec.restartPolicy),
        'spec.schedulerName': str(spec.schedulerName),
        'spec.serviceAccountName': str(spec.serviceAccountName),
        'spec.hostNetwork': spec.hostNetwork === true ? 'true' : 'false',
        'status.phase': str(status.phase),
        'status.podIP': isObj(podIPs[0]) ? str(podIPs[0].ip) : str(status.podIP),
        'status.nominatedNodeName': str(status.nominatedNodeName),
      };
    },
    table: podTable,
    // kube's podStrategy.CheckGracefulDelete: a pod no node runs (not bound, or already Succeeded or
    // Failed) has no agent to finish a graceful deletion, so it goes at once whatever grace was
    // asked; a bound running pod waits spec.terminationGracePeriodSeconds (nil: 0) for its agent.
    deleteGracePeriod(obj) {
      const spec = objAt(obj, 'spec') ?? {};
      const phase = objAt(obj, 'status')?.phase;
      if (typeof spec.nodeName !== 'string' || spec.nodeName === '' || phase === 'Succeeded' || phase === 'Failed') return undefined;
      const grace = spec.terminationGracePeriodSeconds;
      return typeof grace === 'number' ? grace : 0;
    },
    defaultGarbageCollectionPolicy: 'Background',
    subresources: [...podConnectSubresources(), ...podActionSubresources()],
  };
}
