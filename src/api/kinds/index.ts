/**
 * The kinds Ballast serves: one KindDefinition per group/version/kind, in the order discovery lists
 * them.
 */
import type { KindDefinition } from '../kind';
import { deploymentKind } from './apps/deployment';
import { configMapKind } from './core/configmap';
import { namespaceKind } from './core/namespace';
import { podKind } from './core/pod';

export function builtinKinds(): KindDefinition[] {
  return [
    // core/v1
    namespaceKind(),
    podKind(),
    configMapKind(),
    // apps/v1
    deploymentKind(),
  ];
}
