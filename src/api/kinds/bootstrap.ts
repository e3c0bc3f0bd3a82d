/**
 * The bootstrap objects of every built-in group (see src/api/bootstrap-objects.ts), in the order
 * they are ensured at start.
 */
import type { BootstrapObject } from '../bootstrap-objects';
import type { FeatureGateReader } from './rbac/bootstrap/controller-roles';
import { rbacBootstrapObjects } from './rbac/bootstrap/index';
import { systemPriorityClassObjects } from './scheduling';
import { flowcontrolBootstrapObjects } from './flowcontrol/index';

/** `gates`: the server's feature gates (some bootstrap roles exist only with a gate on) */
export function builtinBootstrapObjects(gates?: FeatureGateReader): BootstrapObject[] {
  return [...rbacBootstrapObjects(gates), ...systemPriorityClassObjects(), ...flowcontrolBootstrapObjects()];
}
