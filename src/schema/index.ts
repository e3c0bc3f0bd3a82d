/**
 * The one schema source: every served type as an OpenAPI v2 definition keyed by kube's definition
 * name. The object is deeply frozen; derive validators and documents from it, never mutate it.
 */
import type { Definitions, SchemaNode } from './types';
import { metaDefinitions } from './definitions/meta';
import { coreContainerDefinitions } from './definitions/core-container';
import { corePodDefinitions } from './definitions/core-pod';
import { corePodStatusDefinitions } from './definitions/core-pod-status';
import { coreVolumeDefinitions } from './definitions/core-volume';
import { coreStorageDefinitions } from './definitions/core-storage';
import { coreServiceDefinitions } from './definitions/core-service';
import { coreNodeDefinitions } from './definitions/core-node';
import { coreConfigDefinitions } from './definitions/core-config';
import { appsDefinitions } from './definitions/apps';
import { batchDefinitions } from './definitions/batch';
import { coordinationEventsDefinitions } from './definitions/coordination-events';
import { autoscalingAuthorizationDefinitions } from './definitions/autoscaling-authorization';
import { apiregistrationDefinitions } from './definitions/apiregistration';

export { definitionName } from './definition-name';
export type { Definitions, SchemaNode } from './types';

const PARTS: Definitions[] = [
  metaDefinitions,
  coreContainerDefinitions,
  corePodDefinitions,
  corePodStatusDefinitions,
  coreVolumeDefinitions,
  coreStorageDefinitions,
  coreServiceDefinitions,
  coreNodeDefinitions,
  coreConfigDefinitions,
  appsDefinitions,
  batchDefinitions,
  coordinationEventsDefinitions,
  autoscalingAuthorizationDefinitions,
  apiregistrationDefinitions,
];

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

/** merges the per-group files; a name defined twice is a programming error */
export function mergeDefinitions(parts: Definitions[]): Definitions {
  const all: Record<string, SchemaNode> = {};
  for (const part of parts) {
    for (const [name, node] of Object.entries(part)) {
      if (name in all) throw new Error(`schema definition ${name} is defined twice`);
      all[name] = node;
    }
  }
  return all;
}

export const definitions: Definitions = deepFreeze(mergeDefinitions(PARTS));
