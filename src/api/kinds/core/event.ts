/** core/v1 Event: kube's legacy event validation, field labels and table */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { invalid, required } from '../../validation/field-errors';
import { isQualifiedName } from '../../validation/names';
import { column, nameColumn, since } from '../table-format';
import { isObj, objAt, path, str } from '../util';

export const EVENT_TYPES = ['Normal', 'Warning'];

/** kube's validateEventCommon for events that carry an eventTime (new-style events); `names` map to the version's field names */
export function validateNewStyleEvent(e: {
  reportingController: unknown;
  reportingInstance: unknown;
  action: unknown;
  reason: unknown;
  note: unknown;
  type: unknown;
}, names: { reportingController: string; note: string }): StatusCause[] {
  const causes: StatusCause[] = [];
  const rc = str(e.reportingController);
  if (!rc) causes.push(required(names.reportingController, ''));
  for (const msg of isQualifiedName(rc)) causes.push(invalid(names.reportingController, rc, msg));
  const ri = str(e.reportingInstance);
  if (!ri) causes.push(required('reportingInstance', ''));
  else if (ri.length > 128) causes.push(invalid('reportingInstance', '', 'can have at most 128 characters'));
  const action = str(e.action);
  if (!action) causes.push(required('action', ''));
  else if (action.length > 128) causes.push(invalid('action', '', 'can have at most 128 characters'));
  const reason = str(e.reason);
  if (!reason) causes.push(required('reason', ''));
  else if (reason.length > 128) causes.push(invalid('reason', '', 'can have at most 128 characters'));
  if (str(e.note).length > 1024) causes.push(invalid(names.note, '', 'can have at most 1024 characters'));
  if (!EVENT_TYPES.includes(str(e.type))) causes.push(invalid('type', '', `has invalid value: ${str(e.type)}`));
  return causes;
}

function validate(obj: KubeObject): StatusCause[] {
  const namespace = str(obj.metadata?.namespace);
  const involvedNs = str(path(obj, 'involvedObject', 'namespace'));
  if (!obj.eventTime) {
    // kube's legacyValidateEvent: the involved object's namespace must agree with the event's
    if (!involvedNs) {
      if (namespace !== '' && namespace !== 'default') return [invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace')];
    } else if (namespace !== involvedNs) {
      return [invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace')];
    }
    return [];
  }
  return validateNewStyleEvent(
    { reportingController: obj.reportingComponent, reportingInstance: obj.reportingInstance, action: obj.action, reason: obj.reason, note: obj.message, type: obj.type },
    { reportingController: 'reportingController', note: 'note' },
  );
}

/** kube's field labels for events (core names) */
export function coreEventFields(obj: KubeObject): Record<string, string> {
  const io = objAt(obj, 'involvedObject') ?? {};
  return {
    'involvedObject.kind': str(io.kind),
    'involvedObject.namespace': str(io.namespace),
    'involvedObject.name': str(io.name),
    'involvedObject.uid': str(io.uid),
    'involvedObject.apiVersion': str(io.apiVersion),
    'involvedObject.resourceVersion': str(io.resourceVersion),
    'involvedObject.fieldPath': str(io.fieldPath),
    reason: str(obj.reason),
    reportingComponent: str(obj.reportingComponent),
    source: str(path(obj, 'source', 'component')),
    type: str(obj.type),
  };
}

/** kube's printEvent over a core-form event */
export function coreEventCells(obj: KubeObject, now: Date): unknown[] {
  let first = since(obj.firstTimestamp, now);
  if (!obj.firstTimestamp) first = since(obj.eventTime, now);
  let last = obj.lastTimestamp ? since(obj.lastTimestamp, now) : first;
  let count = typeof obj.count === 'number' ? obj.count : 0;
  if (isObj(obj.series)) {
    last = since(obj.series.lastObservedTime, now);
    count = typeof obj.series.count === 'number' ? obj.series.count : 0;
  } else if (count === 0) {
    count = 1;
  }
  const io = objAt(obj, 'involvedObject') ?? {};
  const kind = str(io.kind).toLowerCase();
  const target = str(io.name) ? `${kind}/${str(io.name)}` : kind;
  const component = str(path(obj, 'source', 'component')) || str(obj.reportingComponent);
  const host = str(path(obj, 'source', 'host')) || str(obj.reportingInstance);
  const source = host ? `${component}, ${host}` : component;
  return [last, str(obj.type), str(obj.reason), target, str(io.fieldPath), source, str(obj.message).trim(), first, count, str(obj.metadata?.name)];
}

export const eventTableColumns = [
  column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
  column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
  column('Reason', 'string', 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.'),
  column('Object', 'string', 'The object that this event is about.'),
  column('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.', 1),
  column('Source', 'string', 'The component reporting this event.', 1),
  column('Message', 'string', 'A human-readable description of the status of this operation.'),
  column('First Seen', 'string', 'The time at which the event was first recorded.', 1),
  column('Count', 'string', 'The number of times this event has occurred.', 1),
  { ...nameColumn(), priority: 1 },
];

export function coreEventKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'Event',
    listKind: 'EventList',
    resource: 'events',
    singular: 'event',
    namespaced: true,
    shortNames: ['ev'],
    categories: [],
    storage: { group: '', resource: 'events' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.Event',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults() {}, validate },
    selectableFields: coreEventFields,
    table: { columns: eventTableColumns, cells: coreEventCells },
    defaultGarbageCollectionPolicy: 'Background',
  };
}

