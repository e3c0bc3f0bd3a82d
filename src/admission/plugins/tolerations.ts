/**
 * DefaultTolerationSeconds and TaintNodesByCondition (kube's plugin/pkg/admission/
 * defaulttolerationseconds and nodetaint). Pods that do not tolerate the not-ready and unreachable
 * NoExecute taints get tolerations of them for --default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds; new nodes start tainted not-ready:NoSchedule until the
 * node lifecycle controller sees them ready.
 */
import type { Admission } from '../types';
import type { AdmissionPluginContext } from '../context';
import { isResource } from '../forbidden';
import { mutating } from '../chain';
import type { Toleration } from './pod';
import { podSpec } from './pod';

export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';

function tolerates(tolerations: Toleration[], key: string): boolean {
  return tolerations.some((t) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
}

export function defaultTolerationSeconds(ctx: AdmissionPluginContext): Admission {
  return mutating((a) => {
    if (!isResource(a, '', 'pods') || !a.object || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
    const spec = podSpec(a.object);
    const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
    const added: Toleration[] = [];
    if (!tolerates(tolerations, NOT_READY_TAINT)) {
      added.push({ key: NOT_READY_TAINT, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: ctx.flags.defaultNotReadyTolerationSeconds });
    }
    if (!tolerates(tolerations, UNREACHABLE_TAINT)) {
      added.push({ key: UNREACHABLE_TAINT, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: ctx.flags.defaultUnreachableTolerationSeconds });
    }
    if (added.length) spec.tolerations = [...tolerations, ...added];
  });
}

export function taintNodesByCondition(): Admission {
  return mutating((a) => {
    if (a.operation !== 'CREATE' || !isResource(a, '', 'nodes') || !a.object) return;
    const spec = (typeof a.object.spec === 'object' && a.object.spec !== null ? a.object.spec : (a.object.spec = {})) as { taints?: Array<{ key?: string; effect?: string }> };
    const taints = Array.isArray(spec.taints) ? spec.taints : [];
    if (taints.some((t) => t.key === NOT_READY_TAINT && t.effect === 'NoSchedule')) return;
    spec.taints = [...taints, { key: NOT_READY_TAINT, effect: 'NoSchedule' }];
  });
}
