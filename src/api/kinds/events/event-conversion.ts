/**
 * core/v1 Event <-> events.k8s.io/v1 Event, as kube converts them (both are served from the core
 * events storage): regarding<->involvedObject, note<->message, reportingController<->reportingComponent,
 * deprecatedSource/FirstTimestamp/LastTimestamp/Count <-> source/firstTimestamp/lastTimestamp/count.
 */
import type { KubeObject } from '../../kind';
import { clone } from '../util';

/** [events.k8s.io name, core name] */
const RENAMED: Array<[string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
const SAME = ['metadata', 'eventTime', 'series', 'reportingInstance', 'action', 'reason', 'related', 'type'];

function copy(from: KubeObject, to: KubeObject, fromKey: string, toKey: string): void {
  if (from[fromKey] !== undefined) to[toKey] = clone(from[fromKey]);
}

export function coreEventToEventsV1(core: KubeObject): KubeObject {
  const out: KubeObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
  for (const k of SAME) copy(core, out, k, k);
  for (const [v1, c] of RENAMED) copy(core, out, c, v1);
  return out;
}

export function eventsV1ToCoreEvent(ev: KubeObject): KubeObject {
  const out: KubeObject = { apiVersion: 'v1', kind: 'Event' };
  for (const k of SAME) copy(ev, out, k, k);
  for (const [v1, c] of RENAMED) copy(ev, out, v1, c);
  return out;
}
