/**
 * events.k8s.io/v1beta1 Event: the fields of events.k8s.io/v1, stored with core/v1 events as v1
 * is. kube validates requests in this version with the legacy (core/v1) event rules only, for
 * compatibility: no immutability on update and no new-style requirements without an eventTime.
 */
import type { KindDefinition, KubeObject } from '../../kind';
import { coreEventKind } from '../core/event';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from './event-conversion';
import { eventsV1Kind } from './event';

const API_VERSION = 'events.k8s.io/v1beta1';

/** the core form of an event written in this version (or already stored) */
function asCore(obj: KubeObject): KubeObject {
  return obj.apiVersion === 'v1' || obj.involvedObject !== undefined ? obj : eventsV1ToCoreEvent(obj);
}

export function eventsV1beta1Kind(): KindDefinition {
  const v1 = eventsV1Kind();
  const legacy = coreEventKind().strategy;
  return {
    ...v1,
    version: 'v1beta1',
    schemaName: 'io.k8s.api.events.v1beta1.Event',
    fromStorage: (obj) => ({ ...coreEventToEventsV1(obj), apiVersion: API_VERSION }),
    toStorage: eventsV1ToCoreEvent,
    strategy: {
      defaults() {},
      validate: (obj) => legacy.validate(asCore(obj)),
    },
  };
}
