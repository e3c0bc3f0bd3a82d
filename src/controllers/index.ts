/**
 * Every controller Ballast implements, by kube's name. The controller manager starts those that
 * `--controllers` enables; names kube knows but Ballast has not written are skipped with a log line.
 */
import type { ControllerDefinition } from './types';
import { replicaSetController, replicationControllerController } from './replicaset';
import { deploymentController } from './deployment';

export const CONTROLLERS: ReadonlyMap<string, ControllerDefinition> = new Map<string, ControllerDefinition>([
  // one line per controller: [definition.name, definition]
  [replicaSetController.name, replicaSetController],
  [replicationControllerController.name, replicationControllerController],
  [deploymentController.name, deploymentController],
]);
