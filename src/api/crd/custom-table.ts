/**
 * The server-side table of a custom resource version, as kube's CR table convertor builds it: Name,
 * then the version's additionalPrinterColumns (or kube's default Age column), each cell from its
 * JSONPath: strings printed as kube's jsonpath prints them (lists and objects as JSON), integers,
 * numbers and booleans as such, dates as an age (`5m`), anything else or missing as null.
 */
import type { KubeObject, TableColumnDefinition, TableDefinition } from '../kind';
import { humanDuration } from '../kinds/table-format';
import type { Column } from './types';
import { isObject } from './types';
import { compile } from './jsonpath';
import type { CompiledPath } from './jsonpath';

const NAME_DOC = 'Name must be unique within a namespace. Cannot be updated.';
const AGE_DOC = 'CreationTimestamp is a timestamp representing the server time when this object was created.';

/** kube's serveDefaultColumnsIfEmpty */
export function columnsOrDefault(columns: Column[] | undefined): Column[] {
  if (Array.isArray(columns) && columns.length > 0) return columns;
  return [{ name: 'Age', type: 'date', description: AGE_DOC, jsonPath: '.metadata.creationTimestamp' }];
}

/** Go's fmt of a decoded JSON scalar (jsonpath's evalToText) */
function printScalar(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  return String(v);
}

/** Go's %v of a float64: shortest form, exponent from 1e21 (and below 1e-4) */
function goFloat(v: number): string {
  const abs = Math.abs(v);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [m, e] = v.toExponential().split('e');
    const exp = Number(e);
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(v);
}

function cell(type: string, value: unknown, now: Date): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'string':
      return typeof value === 'object' ? JSON.stringify(value) : printScalar(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const t = Date.parse(value);
      if (Number.isNaN(t)) return '<invalid>';
      return humanDuration(now.getTime() - t);
    }
    default:
      return null;
  }
}

export function customTable(columns: Column[] | undefined): TableDefinition {
  const defs: TableColumnDefinition[] = [{ name: 'Name', type: 'string', format: 'name', description: NAME_DOC, priority: 0 }];
  const paths: Array<CompiledPath | undefined> = [];
  for (const c of columnsOrDefault(columns)) {
    if (!isObject(c)) continue;
    const path = c.jsonPath ?? c.JSONPath ?? '';
    let compiled: CompiledPath | undefined;
    try {
      compiled = compile(path);
    } catch {
      compiled = undefined;
    }
    paths.push(compiled);
    defs.push({
      name: String(c.name ?? ''),
      type: (c.type ?? 'string') as TableColumnDefinition['type'],
      format: c.format ?? '',
      description: c.description || `Custom resource definition column (in JSONPath format): ${path}`,
      priority: typeof c.priority === 'number' ? c.priority : 0,
    });
  }
  return {
    columns: defs,
    cells(obj: KubeObject, now: Date) {
      const out: unknown[] = [obj.metadata?.name ?? ''];
      paths.forEach((p, i) => {
        const results = p ? p.evaluate(obj) : [];
        out.push(results.length ? cell(defs[i + 1].type, results[0], now) : null);
      });
      return out;
    },
  };
}
