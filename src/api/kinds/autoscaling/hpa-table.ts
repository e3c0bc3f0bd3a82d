/**
 * kube's printHorizontalPodAutoscaler over the v2 form: REFERENCE kind/name, TARGETS as
 * formatHPAMetrics writes them (`cpu: <unknown>/80%`, `<unknown>/500m (avg)`, at most two then
 * `+ N more...`), MINPODS `<unset>` when unset, MAXPODS, REPLICAS from status.currentReplicas.
 */
import type { TableDefinition } from '../../kind';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, isObj, objAt, str } from '../util';
import type { Obj } from '../util';
import { quantityString } from './quantity';

const UNKNOWN = '<unknown>';

function utilization(v: unknown): string {
  return `${String(v)}%`;
}

function formatOne(spec: Obj, status: Obj | undefined): string {
  const field = (o: Obj | undefined, key: string) => (o ? objAt(o, key) : undefined);
  switch (spec.type) {
    case 'External':
    case 'Object': {
      const key = spec.type === 'External' ? 'external' : 'object';
      const target = objAt(objAt(spec, key), 'target') ?? {};
      const current = objAt(field(status, key), 'current');
      if (target.averageValue != null) {
        const now = current?.averageValue != null ? quantityString(current.averageValue) : UNKNOWN;
        return `${now}/${quantityString(target.averageValue)} (avg)`;
      }
      const now = field(status, key) ? quantityString(current?.value) : UNKNOWN;
      return `${now}/${quantityString(target.value)}`;
    }
    case 'Pods': {
      const target = objAt(objAt(spec, 'pods'), 'target') ?? {};
      const now = field(status, 'pods') ? quantityString(objAt(field(status, 'pods'), 'current')?.averageValue) : UNKNOWN;
      return `${now}/${quantityString(target.averageValue)}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
      const src = objAt(spec, key) ?? {};
      const target = objAt(src, 'target') ?? {};
      const statusSrc = field(status, key);
      const current = objAt(statusSrc, 'current');
      if (target.averageValue != null) {
        const now = statusSrc ? quantityString(current?.averageValue) : UNKNOWN;
        return `${str(src.name)}: ${now}/${quantityString(target.averageValue)}`;
      }
      const now = current?.averageUtilization != null ? utilization(current.averageUtilization) : UNKNOWN;
      const goal = target.averageUtilization != null ? utilization(target.averageUtilization) : '<auto>';
      return `${str(src.name)}: ${now}/${goal}`;
    }
  }
  return '<unknown type>';
}

/** kube's formatHPAMetrics */
export function formatHpaMetrics(specs: unknown[], statuses: unknown[]): string {
  if (specs.length === 0) return '<none>';
  const list = specs.map((s, i) => formatOne(isObj(s) ? s : {}, isObj(statuses[i]) ? (statuses[i] as Obj) : undefined));
  const shown = list.slice(0, 2).join(', ');
  return list.length > 2 ? `${shown} + ${list.length - 2} more...` : shown;
}

/** the table of every version; `toV2` gives the object in v2 form */
export function hpaTable(toV2: (obj: Obj) => Obj): TableDefinition {
  return {
    columns: [
      nameColumn(),
      column('Reference', 'string', 'reference to the target workload'),
      column('Targets', 'string', 'the target and current values of the metrics'),
      column('MinPods', 'string', 'the lower limit of replicas'),
      column('MaxPods', 'integer', 'the upper limit of replicas'),
      column('Replicas', 'integer', 'current replicas'),
      ageColumn(),
    ],
    cells(obj, now) {
      const v2 = toV2(obj);
      const spec = objAt(v2, 'spec') ?? {};
      const status = objAt(v2, 'status') ?? {};
      const ref = objAt(spec, 'scaleTargetRef') ?? {};
      const min = spec.minReplicas;
      return [
        str(obj.metadata?.name),
        `${str(ref.kind)}/${str(ref.name)}`,
        formatHpaMetrics(arrAt(spec, 'metrics'), arrAt(status, 'currentMetrics')),
        typeof min === 'number' ? String(min) : '<unset>',
        typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0,
        typeof status.currentReplicas === 'number' ? status.currentReplicas : 0,
        age(obj, now),
      ];
    },
  };
}
