/**
 * Server-side Table conversion (meta.k8s.io Table), what `kubectl get` asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. Kinds with a TableDefinition get their
 * own columns; every other kind gets kube's default table: Name and Created At.
 */
import type { KindDefinition, KubeObject, ObjectMeta, TableColumnDefinition } from './kind';

export type IncludeObject = 'None' | 'Metadata' | 'Object';
export type TableApiVersion = 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';

export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: TableApiVersion;
  metadata: ObjectMeta;
}

export interface TableRow {
  cells: unknown[];
  /** PartialObjectMetadata (Metadata), the object (Object), or null (None), as kube encodes it */
  object: PartialObjectMetadata | KubeObject | null;
}

export interface Table {
  kind: 'Table';
  apiVersion: TableApiVersion;
  metadata: TableListMeta;
  /** null when headers are omitted (every watch event after the first, as kube does) */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

export interface ToTableOptions {
  includeObject: IncludeObject;
  listMeta?: TableListMeta;
  now: Date;
  apiVersion: TableApiVersion;
  /** omit the column definitions (kube's TableOptions.noHeaders, used for watch events after the first) */
  noHeaders?: boolean;
}

/** kube's default columns for kinds without their own table (descriptions are the ObjectMeta field docs, shortened) */
export const defaultTableColumns: readonly TableColumnDefinition[] = Object.freeze([
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace. Cannot be updated.',
    priority: 0,
  },
  {
    name: 'Created At',
    type: 'date',
    format: '',
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    priority: 0,
  },
]);

/** Go's zero time in RFC 3339, what kube prints for an object without creationTimestamp */
const zeroTime = '0001-01-01T00:00:00Z';

/** RFC 3339 in UTC without fractional seconds, as Go's time.RFC3339 formats a UTC time */
function rfc3339(ts: string | null | undefined): string {
  if (!ts) return zeroTime;
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return ts;
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function defaultCells(obj: KubeObject): unknown[] {
  return [obj.metadata?.name ?? '', rfc3339(obj.metadata?.creationTimestamp)];
}

function rowObject(obj: KubeObject, include: IncludeObject, apiVersion: TableApiVersion): TableRow['object'] {
  switch (include) {
    case 'None':
      return null;
    case 'Object':
      return obj;
    case 'Metadata':
      return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata ?? {} };
  }
}

/** convert objects of one kind into a Table (one row per object, in order) */
export function toTable(kind: KindDefinition, objects: KubeObject[], opts: ToTableOptions): Table {
  const columns = kind.table ? kind.table.columns : defaultTableColumns;
  const rows = objects.map((obj) => ({
    cells: kind.table ? kind.table.cells(obj, opts.now) : defaultCells(obj),
    object: rowObject(obj, opts.includeObject, opts.apiVersion),
  }));
  const metadata: TableListMeta = {};
  const lm = opts.listMeta ?? {};
  if (lm.resourceVersion) metadata.resourceVersion = lm.resourceVersion;
  if (lm.continue) metadata.continue = lm.continue;
  if (lm.remainingItemCount !== undefined) metadata.remainingItemCount = lm.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: opts.apiVersion,
    metadata,
    columnDefinitions: opts.noHeaders ? null : columns.map((c) => ({ ...c })),
    rows,
  };
}
