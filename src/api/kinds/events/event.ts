/**
 * events.k8s.io/v1 Event, stored with core/v1 events (kube shares the storage): conversion both ways,
 * kube's events/v1 validation, field labels with the events.k8s.io names, and the events table.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { immutable, invalid, required } from '../../validation/field-errors';
import { coreEventCells, coreEventFields, eventTableColumns, validateNewStyleEvent } from '../core/event';
import { isObj, objAt } from '../util';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from './event-conversion';

function validateCreate(ev: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!ev.eventTime) causes.push(required('eventTime', ''));
  if (ev.deprecatedFirstTimestamp) causes.push(invalid('deprecatedFirstTimestamp', '', 'needs to be unset'));
  if (ev.deprecatedLastTimestamp) causes.push(invalid('deprecatedLastTimestamp', '', 'needs to be unset'));
  if (typeof ev.deprecatedCount === 'number' && ev.deprecatedCount !== 0) causes.push(invalid('deprecatedCount', '', 'needs to be unset'));
  const src = objAt(ev, 'deprecatedSource');
  if (src && (src.component || src.host)) causes.push(invalid('deprecatedSource', '', 'needs to be unset'));
  const series = ev.series;
  if (isObj(series)) {
    if (typeof series.count !== 'number' || series.count < 2) causes.push(invalid('series.count', '', 'should be at least 2'));
    if (!series.lastObservedTime) causes.push(required('series.lastObservedTime', ''));
  }
  causes.push(...validateNewStyleEvent(ev as never, { reportingController: 'reportingController', note: 'note' }));
  return causes;
}

/** kube's ValidateEventUpdate: everything but the series and metadata is fixed */
function validateUpdate(ev: KubeObject, old: KubeObject): StatusCause[] {
  const fields = ['regarding', 'reason', 'note', 'deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount', 'type', 'eventTime', 'action', 'related', 'reportingController', 'reportingInstance'];
  return fields.flatMap((f) => immutable(f, ev[f], old[f]));
}

/** accepts an event in either form (the registry may hold the stored core form) */
function asEventsV1(obj: KubeObject): KubeObject {
  return obj.apiVersion === 'v1' || obj.involvedObject !== undefined ? coreEventToEventsV1(obj) : obj;
}

export function eventsV1Kind(): KindDefinition {
  return {
    group: 'events.k8s.io',
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
    fromStorage: coreEventToEventsV1,
    toStorage: eventsV1ToCoreEvent,
    schemaName: 'io.k8s.api.events.v1.Event',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: {
      defaults() {},
      validate(obj, old) {
        const ev = asEventsV1(obj);
        return old ? validateUpdate(ev, asEventsV1(old)) : validateCreate(ev);
      },
    },
    selectableFields(obj) {
      // kube maps regarding.* and reportingController onto the core field labels
      const core = coreEventFields(eventsV1ToCoreEvent(asEventsV1(obj)));
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(core)) {
        if (k.startsWith('involvedObject.')) out[`regarding.${k.slice('involvedObject.'.length)}`] = v;
        else if (k === 'reportingComponent') out.reportingController = v;
        else if (k === 'reason' || k === 'type') out[k] = v;
      }
      return out;
    },
    table: {
      columns: eventTableColumns,
      cells: (obj, now) => coreEventCells(eventsV1ToCoreEvent(asEventsV1(obj)), now),
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
