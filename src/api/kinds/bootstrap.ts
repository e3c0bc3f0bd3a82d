/**
 * The bootstrap objects of every built-in group (see src/api/bootstrap-objects.ts), in the order
 * they are ensured at start.
 */
import type { BootstrapObject } from '../bootstrap-objects';
import { rbacBootstrapObjects } from './rbac/bootstrap/index';
import { systemPriorityClassObjects } from './scheduling';
import { flowcontrolBootstrapObjects } from './flowcontrol/index';

export function builtinBootstrapObjects(): BootstrapObject[] {
  return [...rbacBootstrapObjects(), ...systemPriorityClassObjects(), ...flowcontrolBootstrapObjects()];
}
