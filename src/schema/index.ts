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
import { corePersistentVolumeDefinitions } from './definitions/core-persistent-volume';
import { coreControllerDefinitions } from './definitions/core-controller';
import { policyDefinitions } from './definitions/policy';
import { appsDefinitions } from './definitions/apps';
import { batchDefinitions } from './definitions/batch';
import { coordinationEventsDefinitions } from './definitions/coordination-events';
import { autoscalingAuthorizationDefinitions } from './definitions/autoscaling-authorization';
import { rbacDefinitions } from './definitions/rbac';
import { admissionRegistrationDefinitions } from './definitions/admissionregistration';
import { certificatesDefinitions } from './definitions/certificates';
import { authenticationReviewDefinitions } from './definitions/authentication-reviews';
import { networkingDefinitions } from './definitions/networking';
import { discoveryDefinitions } from './definitions/discovery';
import { nodeSchedulingDefinitions } from './definitions/node-scheduling';
import { storageDefinitions } from './definitions/storage';
import { autoscalingHpaDefinitions } from './definitions/autoscaling-hpa';
import { earlierVersionDefinitions } from './definitions/earlier-versions';
import { flowcontrolDefinitions } from './definitions/flowcontrol';
import { apiserverInternalDefinitions } from './definitions/apiserverinternal';
import { apiextensionsDefinitions } from './definitions/apiextensions';
import { apiregistrationDefinitions } from './definitions/apiregistration';
import { deepFreeze } from '../util/freeze';

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
  corePersistentVolumeDefinitions,
  coreControllerDefinitions,
  policyDefinitions,
  appsDefinitions,
  batchDefinitions,
  coordinationEventsDefinitions,
  autoscalingAuthorizationDefinitions,
  rbacDefinitions,
  admissionRegistrationDefinitions,
  certificatesDefinitions,
  authenticationReviewDefinitions,
  networkingDefinitions,
  discoveryDefinitions,
  nodeSchedulingDefinitions,
  storageDefinitions,
  autoscalingHpaDefinitions,
  earlierVersionDefinitions,
  flowcontrolDefinitions,
  apiserverInternalDefinitions,
  apiextensionsDefinitions,
  apiregistrationDefinitions,
];


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
