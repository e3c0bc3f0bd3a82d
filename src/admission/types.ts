/**
 * The admission seam (kube's admission.Interface): what a write asks admission about, and the two
 * phases. Mutating plugins run after the object is decoded and defaulted and may change it;
 * validating plugins run on the final object, after the kind's own validation, and may only refuse
 * (throw an ApiError: 403 Forbidden for policy refusals, 422 or 400 where kube uses them). The
 * registry calls them for create, update (PUT, patch, apply, subresources) and delete; CONNECT for
 * exec/attach/portforward/proxy.
 */
import type { KindDefinition, KubeObject } from '../api/kind';
import type { UserInfo } from '../api/reviews/authorizer';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  /** the resource's kind as served at the request's group/version */
  kind: KindDefinition;
  /** '' for the main resource, else status, scale, binding, eviction, ... */
  subresource: string;
  /** '' for cluster-scoped objects */
  namespace: string;
  /** '' when not yet known (generateName) */
  name: string;
  /** the new object (create, update); mutating plugins may change it in place */
  object?: KubeObject;
  /** the stored object (update, delete) */
  oldObject?: KubeObject;
  /** CreateOptions / UpdateOptions / PatchOptions / DeleteOptions as kube sends them to webhooks */
  options?: Record<string, unknown>;
  dryRun: boolean;
  /** undefined when the server runs without authentication */
  user?: UserInfo;
  /** texts for the response's Warning headers; plugins (webhooks) append to it */
  warnings?: string[];
}

export interface Admission {
  /** the mutating phase; may change attributes.object */
  admit(attributes: AdmissionAttributes): Promise<void>;
  /** the validating phase; throws to refuse */
  validate(attributes: AdmissionAttributes): Promise<void>;
}
