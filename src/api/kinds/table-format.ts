/**
 * Cell formatting shared by the kinds' tables, as kube's printers do it: ages as
 * duration.HumanDuration, label maps as `k=v,k2=v2`, container names and images comma-joined.
 */
import type { TableColumnDefinition } from '../kind';
import { arrAt, isObj, path, str, stringMap } from './util';

/** kube's duration.HumanDuration: 5s, 3m20s, 12m, 5h3m, 2d4h, 400d, 3y20d */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    const y = Math.floor(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

/** kube's translateTimestampSince: `<unknown>` for an unset time */
export function since(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' || !timestamp) return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now.getTime() - t);
}

export function age(obj: unknown, now: Date): string {
  return since(path(obj, 'metadata', 'creationTimestamp'), now);
}

/** kube's labels.FormatLabels: sorted `k=v` pairs, `<none>` when empty */
export function formatLabels(labels: unknown): string {
  const m = stringMap(labels);
  const keys = Object.keys(m).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${m[k]}`).join(',');
}

/** kube's layoutContainerCells: names and images, comma-joined */
export function containerCells(podSpec: unknown): [string, string] {
  const containers = arrAt(podSpec, 'containers').filter(isObj);
  return [containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
}

// kube's column descriptions come from the API's field docs; ours are short paraphrases
const NAME_DOC = 'Name must be unique within a namespace. Cannot be updated.';
const AGE_DOC = 'CreationTimestamp is a timestamp representing the server time when this object was created.';

export function nameColumn(): TableColumnDefinition {
  return { name: 'Name', type: 'string', format: 'name', description: NAME_DOC, priority: 0 };
}

export function ageColumn(): TableColumnDefinition {
  return { name: 'Age', type: 'string', format: '', description: AGE_DOC, priority: 0 };
}

export function column(name: string, type: TableColumnDefinition['type'], description: string, priority = 0): TableColumnDefinition {
  return { name, type, format: '', description, priority };
}

/** the Containers / Images (/ Selector) wide columns of workload tables */
export function containerColumns(withSelector: boolean): TableColumnDefinition[] {
  const cols = [
    column('Containers', 'string', 'Names of each container in the template.', 1),
    column('Images', 'string', 'Images referenced by each container in the template.', 1),
  ];
  if (withSelector) cols.push(column('Selector', 'string', 'Label selector for pods.', 1));
  return cols;
}
