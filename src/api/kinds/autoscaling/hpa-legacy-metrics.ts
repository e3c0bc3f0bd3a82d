/**
 * Metrics in the legacy shape of autoscaling/v2beta1 (which autoscaling/v1 also uses inside its
 * annotations) <-> the MetricTarget shape of v2 and v2beta2, as kube's conversion functions
 * (pkg/apis/autoscaling/v2beta1/conversion.go, v1/conversion.go) map them:
 *   Resource: targetAverageUtilization / targetAverageValue <-> target {Utilization | AverageValue}
 *   Pods:     targetAverageValue <-> target {AverageValue}
 *   Object:   targetValue / averageValue <-> target {Value | AverageValue}, describedObject <-> target
 *   External: targetValue / targetAverageValue <-> target {Value | AverageValue}
 * Quantities the legacy shape holds by value are written as "0" when unset, as Go does. Objects are
 * built in Go's field order, since the v1 annotations are JSON that clients may compare.
 */
import { isObj } from '../util';
import type { Obj } from '../util';
import { isZeroQuantity } from './quantity';

/** drop undefined members, so optional fields are omitted (Go's omitempty) */
function compact(o: Obj): Obj {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

const objAt = (o: Obj, key: string): Obj => (isObj(o[key]) ? (o[key] as Obj) : {});

function reference(ref: unknown): Obj {
  const r = isObj(ref) ? ref : {};
  return compact({ kind: r.kind ?? '', name: r.name ?? '', apiVersion: r.apiVersion || undefined });
}

// ---- spec

function legacySource(type: string, m: Obj): Obj | undefined {
  switch (type) {
    case 'Resource':
    case 'ContainerResource': {
      const src = objAt(m, type === 'Resource' ? 'resource' : 'containerResource');
      const t = objAt(src, 'target');
      return compact({
        name: src.name ?? '',
        targetAverageUtilization: t.averageUtilization ?? undefined,
        targetAverageValue: t.averageValue ?? undefined,
        ...(type === 'ContainerResource' ? { container: src.container ?? '' } : {}),
      });
    }
    case 'Pods': {
      const src = objAt(m, 'pods');
      const id = objAt(src, 'metric');
      return compact({ metricName: id.name ?? '', targetAverageValue: objAt(src, 'target').averageValue ?? '0', selector: id.selector ?? undefined });
    }
    case 'Object': {
      const src = objAt(m, 'object');
      const id = objAt(src, 'metric');
      const t = objAt(src, 'target');
      return compact({
        target: reference(src.describedObject),
        metricName: id.name ?? '',
        targetValue: t.value ?? '0',
        selector: id.selector ?? undefined,
        averageValue: t.averageValue ?? undefined,
      });
    }
    case 'External': {
      const src = objAt(m, 'external');
      const id = objAt(src, 'metric');
      const t = objAt(src, 'target');
      return compact({ metricName: id.name ?? '', metricSelector: id.selector ?? undefined, targetValue: t.value ?? undefined, targetAverageValue: t.averageValue ?? undefined });
    }
  }
  return undefined;
}

const FIELD_OF: Record<string, string> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  ContainerResource: 'containerResource',
  External: 'external',
};
/** Go's field order of MetricSpec and MetricStatus */
const SOURCE_ORDER = ['object', 'pods', 'resource', 'containerResource', 'external'];

/**
 * Convert each source the metric carries (validation, not conversion, insists on exactly one),
 * so nothing is lost on the way.
 */
function convertSources(m: unknown, convert: (type: string, m: Obj) => Obj | undefined): Obj {
  const metric = isObj(m) ? m : {};
  const out: Obj = { type: metric.type ?? '' };
  for (const field of SOURCE_ORDER) {
    if (!isObj(metric[field])) continue;
    const type = Object.keys(FIELD_OF).find((t) => FIELD_OF[t] === field) as string;
    out[field] = convert(type, metric);
  }
  return compact(out);
}

/** a v2 MetricSpec in the legacy shape */
export function metricSpecToLegacy(m: unknown): Obj {
  return convertSources(m, legacySource);
}

function v2Source(type: string, m: Obj): Obj | undefined {
  switch (type) {
    case 'Resource':
    case 'ContainerResource': {
      const src = objAt(m, FIELD_OF[type]);
      const utilization = src.targetAverageUtilization ?? undefined;
      return compact({
        name: src.name ?? '',
        target: compact({
          type: utilization === undefined ? 'AverageValue' : 'Utilization',
          averageValue: src.targetAverageValue ?? undefined,
          averageUtilization: utilization,
        }),
        ...(type === 'ContainerResource' ? { container: src.container ?? '' } : {}),
      });
    }
    case 'Pods': {
      const src = objAt(m, 'pods');
      return {
        metric: compact({ name: src.metricName ?? '', selector: src.selector ?? undefined }),
        target: { type: 'AverageValue', averageValue: src.targetAverageValue ?? '0' },
      };
    }
    case 'Object': {
      const src = objAt(m, 'object');
      const average = src.averageValue ?? undefined;
      // kube always carries targetValue over, so an average target read back through v1/v2beta1
      // would gain value "0", which its own validation then refuses; the zero is left out instead
      const value = average !== undefined && isZeroQuantity(src.targetValue) ? undefined : src.targetValue ?? '0';
      return {
        describedObject: reference(src.target),
        target: compact({ type: average === undefined ? 'Value' : 'AverageValue', value, averageValue: average }),
        metric: compact({ name: src.metricName ?? '', selector: src.selector ?? undefined }),
      };
    }
    case 'External': {
      const src = objAt(m, 'external');
      const value = src.targetValue ?? undefined;
      return {
        metric: compact({ name: src.metricName ?? '', selector: src.metricSelector ?? undefined }),
        target: compact({ type: value === undefined ? 'AverageValue' : 'Value', value, averageValue: src.targetAverageValue ?? undefined }),
      };
    }
  }
  return undefined;
}

/** a legacy MetricSpec in the v2 shape */
export function metricSpecFromLegacy(m: unknown): Obj {
  return convertSources(m, v2Source);
}

// ---- status

function legacyStatus(type: string, m: Obj): Obj | undefined {
  switch (type) {
    case 'Resource':
    case 'ContainerResource': {
      const src = objAt(m, FIELD_OF[type]);
      const c = objAt(src, 'current');
      return compact({
        name: src.name ?? '',
        currentAverageUtilization: c.averageUtilization ?? undefined,
        currentAverageValue: c.averageValue ?? '0',
        ...(type === 'ContainerResource' ? { container: src.container ?? '' } : {}),
      });
    }
    case 'Pods': {
      const src = objAt(m, 'pods');
      const id = objAt(src, 'metric');
      return compact({ metricName: id.name ?? '', currentAverageValue: objAt(src, 'current').averageValue ?? '0', selector: id.selector ?? undefined });
    }
    case 'Object': {
      const src = objAt(m, 'object');
      const id = objAt(src, 'metric');
      const c = objAt(src, 'current');
      return compact({
        target: reference(src.describedObject),
        metricName: id.name ?? '',
        currentValue: c.value ?? '0',
        selector: id.selector ?? undefined,
        averageValue: c.averageValue ?? undefined,
      });
    }
    case 'External': {
      const src = objAt(m, 'external');
      const id = objAt(src, 'metric');
      const c = objAt(src, 'current');
      return compact({ metricName: id.name ?? '', metricSelector: id.selector ?? undefined, currentValue: c.value ?? '0', currentAverageValue: c.averageValue ?? undefined });
    }
  }
  return undefined;
}

/** a v2 MetricStatus in the legacy shape */
export function metricStatusToLegacy(m: unknown): Obj {
  return convertSources(m, legacyStatus);
}

function v2Status(type: string, m: Obj): Obj | undefined {
  switch (type) {
    case 'Resource':
    case 'ContainerResource': {
      const src = objAt(m, FIELD_OF[type]);
      return compact({
        name: src.name ?? '',
        current: compact({ averageValue: src.currentAverageValue ?? '0', averageUtilization: src.currentAverageUtilization ?? undefined }),
        ...(type === 'ContainerResource' ? { container: src.container ?? '' } : {}),
      });
    }
    case 'Pods': {
      const src = objAt(m, 'pods');
      return {
        metric: compact({ name: src.metricName ?? '', selector: src.selector ?? undefined }),
        current: { averageValue: src.currentAverageValue ?? '0' },
      };
    }
    case 'Object': {
      const src = objAt(m, 'object');
      return {
        metric: compact({ name: src.metricName ?? '', selector: src.selector ?? undefined }),
        current: compact({ value: src.currentValue ?? '0', averageValue: src.averageValue ?? undefined }),
        describedObject: reference(src.target),
      };
    }
    case 'External': {
      const src = objAt(m, 'external');
      return {
        metric: compact({ name: src.metricName ?? '', selector: src.metricSelector ?? undefined }),
        current: compact({ value: src.currentValue ?? '0', averageValue: src.currentAverageValue ?? undefined }),
      };
    }
  }
  return undefined;
}

/** a legacy MetricStatus in the v2 shape */
export function metricStatusFromLegacy(m: unknown): Obj {
  return convertSources(m, v2Status);
}

/** a condition in Go's field order (the v1 conditions annotation); lastTransitionTime is always written */
export function conditionToLegacy(c: unknown): Obj {
  const cond = isObj(c) ? c : {};
  return compact({
    type: cond.type ?? '',
    status: cond.status ?? '',
    lastTransitionTime: cond.lastTransitionTime ?? null,
    reason: cond.reason || undefined,
    message: cond.message || undefined,
  });
}

/** a condition read from the annotation, without the null time Go wrote for an unset one */
export function conditionFromLegacy(c: unknown): Obj {
  const cond = { ...(isObj(c) ? c : {}) };
  if (cond.lastTransitionTime === null) delete cond.lastTransitionTime;
  return cond;
}
