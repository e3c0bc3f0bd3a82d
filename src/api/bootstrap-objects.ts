/**
 * Objects kube's API server creates at start and keeps as it wants them: the bootstrap RBAC roles
 * and bindings, the system PriorityClasses, the mandatory and suggested FlowSchemas and priority
 * levels, the local APIServices. Each kind module exports the ones it owns; the registry's
 * bootstrap creates what is missing and reconciles what exists (src/api/registry/bootstrap.ts).
 */
import type { KubeObject } from './kind';

export interface BootstrapObject {
  /** the object as kube creates it; its apiVersion and kind choose the served kind (skipped when not served) */
  object: KubeObject;
  /**
   * what to write over an object that exists already: the object to store, or undefined to leave
   * it alone (absent = create only when missing, as kube does for its PriorityClasses). RBAC's
   * reconciliation adds missing rules unless autoupdate is off; mandatory FlowSchemas are reset.
   */
  reconcile?(existing: KubeObject, wanted: KubeObject): KubeObject | undefined;
}
