/**
 * Every controller Ballast implements, by kube's name. The controller manager starts those that
 * `--controllers` enables; names kube knows but Ballast has not written are skipped with a log line.
 */
import { garbageCollectorController } from './garbagecollector';
import { namespaceController } from './namespace';
import type { ControllerDefinition } from './types';
import { bootstrapSignerController } from './bootstrap/bootstrap-signer';
import { tokenCleanerController } from './bootstrap/token-cleaner';
import { csrApprovingController } from './certificates/csr-approving';
import { csrCleanerController } from './certificates/csr-cleaner';
import { csrSigningController } from './certificates/csr-signing';
import { clusterRoleAggregationController } from './clusterroleaggregation/aggregation-controller';
import { rootCaCertPublisher } from './rootcacertpublisher/publisher';
import { serviceAccountController } from './serviceaccount/serviceaccounts-controller';
import { serviceAccountTokenController } from './serviceaccount/tokens-controller';
import { replicaSetController, replicationControllerController } from './replicaset';
import { deploymentController } from './deployment';
import { endpointController } from './endpoint';
import { endpointSliceController } from './endpointslice';
import { endpointSliceMirroringController } from './endpointslicemirroring';
import { jobController } from './job';
import { cronJobController } from './cronjob';
import { ttlAfterFinishedController } from './ttlafterfinished';
import { persistentVolumeBinderController, persistentVolumeExpanderController, pvProtectionController, pvcProtectionController } from './volume';
import { nodeLifecycleController } from './nodelifecycle';
import { nodeIpamController } from './nodeipam';
import { ttlController } from './ttl';
import { podGcController } from './podgc';
import { statefulSetController } from './statefulset';
import { daemonSetController } from './daemonset';
import { resourceQuotaController } from './resourcequota';
import { disruptionController } from './disruption';
import { horizontalPodAutoscalerController } from './podautoscaler';

export const CONTROLLERS: ReadonlyMap<string, ControllerDefinition> = new Map<string, ControllerDefinition>([
  // one line per controller: [definition.name, definition]
  [garbageCollectorController.name, garbageCollectorController],
  [namespaceController.name, namespaceController],
  [serviceAccountController.name, serviceAccountController],
  [serviceAccountTokenController.name, serviceAccountTokenController],
  [rootCaCertPublisher.name, rootCaCertPublisher],
  [clusterRoleAggregationController.name, clusterRoleAggregationController],
  [csrApprovingController.name, csrApprovingController],
  [csrSigningController.name, csrSigningController],
  [csrCleanerController.name, csrCleanerController],
  [bootstrapSignerController.name, bootstrapSignerController],
  [tokenCleanerController.name, tokenCleanerController],
  [replicaSetController.name, replicaSetController],
  [replicationControllerController.name, replicationControllerController],
  [deploymentController.name, deploymentController],
  [endpointController.name, endpointController],
  [endpointSliceController.name, endpointSliceController],
  [endpointSliceMirroringController.name, endpointSliceMirroringController],
  [jobController.name, jobController],
  [cronJobController.name, cronJobController],
  [ttlAfterFinishedController.name, ttlAfterFinishedController],
  [persistentVolumeBinderController.name, persistentVolumeBinderController],
  [pvProtectionController.name, pvProtectionController],
  [pvcProtectionController.name, pvcProtectionController],
  [persistentVolumeExpanderController.name, persistentVolumeExpanderController],
  [nodeLifecycleController.name, nodeLifecycleController],
  [nodeIpamController.name, nodeIpamController],
  [ttlController.name, ttlController],
  [podGcController.name, podGcController],
  [statefulSetController.name, statefulSetController],
  [daemonSetController.name, daemonSetController],
  [resourceQuotaController.name, resourceQuotaController],
  [disruptionController.name, disruptionController],
  [horizontalPodAutoscalerController.name, horizontalPodAutoscalerController],
]);
