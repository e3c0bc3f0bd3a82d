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
  [resourceQuotaController.name, resourceQuotaController],
  [disruptionController.name, disruptionController],
  [horizontalPodAutoscalerController.name, horizontalPodAutoscalerController],
]);
