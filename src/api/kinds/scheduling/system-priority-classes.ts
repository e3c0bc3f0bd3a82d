/**
 * kube's two system PriorityClasses: created at start (bootstrap objects; an existing one is left
 * as it is, as kube's post-start hook does), the only classes whose names may start with `system-`,
 * and refused deletion.
 */
import type { BootstrapObject } from '../../bootstrap-objects';

/** kube's HighestUserDefinablePriority; system classes sit above it */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;

export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';

export interface SystemPriorityClass {
  name: string;
  value: number;
  globalDefault: boolean;
  description: string;
}

export const SYSTEM_PRIORITY_CLASSES: readonly SystemPriorityClass[] = Object.freeze([
  {
    name: 'system-node-critical',
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    globalDefault: false,
    description: 'For critical system pods that have to stay on the node they run on.',
  },
  {
    name: 'system-cluster-critical',
    value: SYSTEM_CRITICAL_PRIORITY,
    globalDefault: false,
    description: 'For critical system pods that have to run in the cluster but may move to another node.',
  },
]);

/** kube's IsKnownSystemPriorityClass: '' when name, value and globalDefault are a system class's */
export function systemPriorityClassError(name: string, value: unknown, globalDefault: boolean): string {
  const spc = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);
  if (!spc) return `${name} is not a known system priority class`;
  if (spc.value !== value) return `value of ${spc.name} PriorityClass must be ${spc.value}`;
  if (spc.globalDefault !== globalDefault) return `globalDefault of ${spc.name} PriorityClass must be ${spc.globalDefault}`;
  return '';
}

/** the system classes as kube's bootstrap creates them (scheduling.k8s.io/v1) */
export function systemPriorityClassObjects(): BootstrapObject[] {
  return SYSTEM_PRIORITY_CLASSES.map((c) => ({
    object: {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: c.name },
      value: c.value,
      description: c.description,
    },
  }));
}
