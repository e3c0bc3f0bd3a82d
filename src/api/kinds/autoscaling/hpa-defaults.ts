/**
 * kube's SetDefaults_HorizontalPodAutoscaler per version:
 * - every version: minReplicas 1;
 * - v2beta1, v2beta2, v2: without metrics, 80% average CPU utilization (v1 gets the same target
 *   from its conversion instead, hpa-conversion.ts);
 * - v2beta2, v2: a behavior that is present is completed: scale up by at most 4 pods or 100% per
 *   15 s with no stabilization window, scale down by at most 100% per 15 s (its window stays unset:
 *   the controller's --horizontal-pod-autoscaler-downscale-stabilization applies), Max policy.
 * Also the status fields Go always writes (no omitempty), so reads show what kube shows.
 */
import type { KubeObject } from '../../kind';
import { ensureObj, isObj, setDefault } from '../util';
import type { Obj } from '../util';
import type { HpaVersion } from './hpa-conversion';
import { DEFAULT_CPU_UTILIZATION } from './hpa-conversion';

function scaleUpRules(): Obj {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
  };
}

function scaleDownRules(): Obj {
  return { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };
}

/** kube's copyHPAScalingRules: the given fields over the defaults */
function completeRules(given: unknown, defaults: Obj): Obj {
  if (!isObj(given)) return defaults;
  const out: Obj = { ...given };
  for (const [k, v] of Object.entries(defaults)) if (out[k] === undefined || out[k] === null) out[k] = v;
  return out;
}

/** the status fields each version writes even when zero or nil */
const STATUS_ZEROS: Record<HpaVersion, Obj> = {
  v1: { currentReplicas: 0, desiredReplicas: 0 },
  v2beta1: { currentReplicas: 0, desiredReplicas: 0, currentMetrics: null, conditions: null },
  v2beta2: { currentReplicas: 0, desiredReplicas: 0, currentMetrics: null, conditions: null },
  v2: { desiredReplicas: 0, currentMetrics: null },
};

export function defaultHpa(version: HpaVersion, obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  setDefault(spec, 'minReplicas', 1);
  if (version !== 'v1' && (!Array.isArray(spec.metrics) || spec.metrics.length === 0)) {
    spec.metrics = [
      version === 'v2beta1'
        ? { type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: DEFAULT_CPU_UTILIZATION } }
        : { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } },
    ];
  }
  if ((version === 'v2' || version === 'v2beta2') && isObj(spec.behavior)) {
    spec.behavior.scaleUp = completeRules(spec.behavior.scaleUp, scaleUpRules());
    spec.behavior.scaleDown = completeRules(spec.behavior.scaleDown, scaleDownRules());
  }
  const status = ensureObj(obj, 'status');
  for (const [k, v] of Object.entries(STATUS_ZEROS[version])) if (!(k in status)) status[k] = v;
}
