/**
 * Every controller Ballast implements, by kube's name. The controller manager starts those that
 * `--controllers` enables; names kube knows but Ballast has not written are skipped with a log line.
 */
import { garbageCollectorController } from './garbagecollector';
import { namespaceController } from './namespace';
import type { ControllerDefinition } from './types';

export const CONTROLLERS: ReadonlyMap<string, ControllerDefinition> = new Map<string, ControllerDefinition>([
  // one line per controller: [definition.name, definition]
  [garbageCollectorController.name, garbageCollectorController],
  [namespaceController.name, namespaceController],
]);
