/**
 * NodeRestriction (kube's plugin/pkg/admission/noderestriction): what a node agent (user
 * `system:node:<name>` in group system:nodes) may write, narrowing what the Node authorizer lets
 * through. Its own Node only (no taint changes, no configSource, no restricted labels); mirror
 * pods bound to itself that use no secrets, configmaps, claims or service account; status and
 * evictions of its own pods; deletes of its own pods; claim status (capacity and conditions only);
 * tokens bound to its own pods; its own Lease and CSINode. Other users pass untouched. Refusals are
 * kube's, word for word (403 Forbidden).
 */
import type { KubeObject } from '../../api/kind';
import { errors } from '../../api/errors';
import { isObj, str } from '../../api/kinds/util';
import { jsonEqual } from '../../api/json-value';
import { nodeIdentity } from '../../auth/authz/node';
import { podReferences } from '../../auth/authz/node-references';
import { mutating } from '../chain';
import type { AdmissionPluginContext } from '../context';
import { CORE } from '../context';
import { admissionForbidden } from '../forbidden';
import type { Admission, AdmissionAttributes } from '../types';
import { forbiddenNodeLabels, modifiedLabels } from './node-labels';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

const specOf = (obj: KubeObject | undefined): Record<string, unknown> => (obj && isObj(obj.spec) ? obj.spec : {});
const labelsOf = (obj: KubeObject | undefined): Record<string, string> => ({ ...(obj?.metadata?.labels ?? {}) }) as Record<string, string>;
const nodeNameOf = (pod: KubeObject | undefined): string => str(specOf(pod).nodeName);

export function nodeRestriction(ctx: AdmissionPluginContext): Admission {
  /** the stored pod, or kube's NotFound */
  const existingPod = async (namespace: string, name: string): Promise<KubeObject> => {
    const pod = await ctx.objects.get(CORE('pods'), namespace, name);
    if (!pod) throw errors.notFound({ group: '', resource: 'pods' }, name);
    return pod;
  };

  async function admitPod(node: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation === 'CREATE') return admitMirrorPod(node, a);
    if (a.operation === 'DELETE') {
      const pod = a.oldObject ?? (await existingPod(a.namespace, a.name));
      if (nodeNameOf(pod) !== node) throw admissionForbidden(a, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    throw admissionForbidden(a, `unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`);
  }

  async function admitMirrorPod(node: string, a: AdmissionAttributes): Promise<void> {
    const pod = a.object ?? {};
    const refuse = (why: string) => admissionForbidden(a, why);
    if (!Object.prototype.hasOwnProperty.call(pod.metadata?.annotations ?? {}, MIRROR_POD_ANNOTATION)) {
      throw refuse(`pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
    }
    if (nodeNameOf(pod) !== node) throw refuse(`node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners = Array.isArray(pod.metadata?.ownerReferences) ? (pod.metadata!.ownerReferences as unknown as Record<string, unknown>[]) : [];
    if (owners.length > 1) throw refuse(`node "${node}" can only create pods with a single owner reference set to itself`);
    const owner = owners[0];
    if (!owner || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
      throw refuse(`node "${node}" can only create pods with an owner reference set to itself`);
    }
    if (owner.controller !== true) throw refuse(`node "${node}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw refuse(`node "${node}" must not set blockOwnerDeletion on an owner reference`);
    const nodeObject = await ctx.objects.get(CORE('nodes'), '', node);
    if (!nodeObject) throw errors.notFound({ group: '', resource: 'nodes' }, node);
    const uid = str(nodeObject.metadata?.uid);
    if (str(owner.uid) !== uid) throw refuse(`node ${node} UID mismatch: expected ${str(owner.uid)} got ${uid}`);
    // a mirror pod may not reach any other API object
    const refs = podReferences(pod);
    if (str(specOf(pod).serviceAccountName) !== '') throw refuse(`node "${node}" can not create pods that reference a service account`);
    if (refs.secrets.size > 0) throw refuse(`node "${node}" can not create pods that reference secrets`);
    if (refs.configmaps.size > 0) throw refuse(`node "${node}" can not create pods that reference configmaps`);
    const volumes = Array.isArray(specOf(pod).volumes) ? (specOf(pod).volumes as unknown[]).filter(isObj) : [];
    if (volumes.some((v) => isObj(v.projected) && Array.isArray(v.projected.sources) && v.projected.sources.some((s) => isObj(s) && isObj(s.clusterTrustBundle)))) {
      throw refuse(`node "${node}" can not create pods that reference clustertrustbundles`);
    }
    if (volumes.some((v) => isObj(v.persistentVolumeClaim))) throw refuse(`node "${node}" can not create pods that reference persistentvolumeclaims`);
  }

  function admitPodStatus(node: string, a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE') throw admissionForbidden(a, `unexpected operation "${a.operation}"`);
    if (nodeNameOf(a.oldObject) !== node) throw admissionForbidden(a, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    if (!jsonEqual(labelsOf(a.oldObject), labelsOf(a.object))) throw admissionForbidden(a, `node "${node}" cannot update labels through pod status`);
  }

  async function admitPodEviction(node: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE') throw admissionForbidden(a, `unexpected operation ${a.operation}`);
    // the pod named by the path, else by the Eviction
    const name = a.name || str(a.object?.metadata?.name);
    if (name === '') throw admissionForbidden(a, 'could not determine pod from request data');
    const pod = await existingPod(a.namespace, name);
    if (nodeNameOf(pod) !== node) throw admissionForbidden(a, `node ${node} can only evict pods with spec.nodeName set to itself`);
  }

  function admitClaimStatus(node: string, a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE') throw admissionForbidden(a, `unexpected operation "${a.operation}"`);
    // everything but the status fields a node reports must stay as it was
    const comparable = (pvc: KubeObject | undefined) => {
      const { resourceVersion: _rv, managedFields: _mf, ...metadata } = pvc?.metadata ?? {};
      const { capacity: _c, conditions: _cond, allocatedResources: _ar, allocatedResourceStatuses: _ars, ...status } = (isObj(pvc?.status) ? pvc!.status : {}) as Record<string, unknown>;
      return { ...pvc, metadata, status };
    };
    const before = comparable(a.oldObject);
    const after = comparable(a.object);
    if (!jsonEqual(before, after)) {
      const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !jsonEqual((before as Record<string, unknown>)[k], (after as Record<string, unknown>)[k]));
      throw admissionForbidden(a, `node "${node}" is not allowed to update fields other than status.capacity and status.conditions: ${changed.join(', ')} changed`);
    }
  }

  function admitNode(node: string, a: AdmissionAttributes): void {
    if (a.name !== node) throw admissionForbidden(a, `node "${node}" is not allowed to modify node "${a.name}"`);
    if (a.operation === 'CREATE') {
      if (specOf(a.object).configSource != null) throw admissionForbidden(a, `node "${node}" is not allowed to create pods with a non-nil configSource`);
      const forbidden = forbiddenNodeLabels(modifiedLabels(labelsOf(a.object), {}));
      if (forbidden.length > 0) throw admissionForbidden(a, `node "${node}" is not allowed to set the following labels: ${forbidden.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      const spec = specOf(a.object);
      const oldSpec = specOf(a.oldObject);
      if (spec.configSource != null && !jsonEqual(spec.configSource, oldSpec.configSource)) {
        throw admissionForbidden(a, `node "${node}" is not allowed to update configSource to a new non-nil configSource`);
      }
      if (!jsonEqual(spec.taints ?? [], oldSpec.taints ?? [])) throw admissionForbidden(a, `node "${node}" is not allowed to modify taints`);
      const forbidden = forbiddenNodeLabels(modifiedLabels(labelsOf(a.object), labelsOf(a.oldObject)));
      if (forbidden.length > 0) throw admissionForbidden(a, `is not allowed to modify labels: ${forbidden.join(', ')}`);
    }
  }

  async function admitServiceAccountToken(node: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
    const spec = specOf(a.object);
    const ref = isObj(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
    if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || str(ref.name) === '') throw admissionForbidden(a, 'node requested token not bound to a pod');
    if (str(ref.uid) === '') throw admissionForbidden(a, 'node requested token with a pod binding without a uid');
    const pod = await existingPod(a.namespace, str(ref.name));
    if (str(ref.uid) !== str(pod.metadata?.uid)) {
      throw admissionForbidden(a, `the UID in the bound object reference (${str(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (nodeNameOf(pod) !== node) throw admissionForbidden(a, 'node requested token bound to a pod scheduled on a different node');
  }

  /** leases and CSINodes: the object named after the node (on create, the object's own name) */
  function admitNamedAfterNode(node: string, a: AdmissionAttributes, what: string): void {
    const name = a.operation === 'CREATE' ? str(a.object?.metadata?.name) : a.name;
    if (name !== node) throw admissionForbidden(a, `can only access ${what} with the same name as the requesting node`);
  }

  return mutating(async (a) => {
    // kube's plugin handles CREATE, UPDATE and DELETE
    if (a.operation === 'CONNECT') return;
    const node = nodeIdentity(a.user);
    if (node === undefined) return;
    if (node === '') throw admissionForbidden(a, `could not determine node from user "${a.user?.name ?? ''}"`);
    const group = a.kind.group;
    const resource = a.kind.resource;
    if (group === '' && resource === 'pods') {
      if (a.subresource === '') return admitPod(node, a);
      if (a.subresource === 'status') return admitPodStatus(node, a);
      if (a.subresource === 'eviction') return admitPodEviction(node, a);
      throw admissionForbidden(a, `unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
    }
    if (group === '' && resource === 'nodes') return admitNode(node, a);
    if (group === '' && resource === 'persistentvolumeclaims') {
      if (a.subresource === 'status') return admitClaimStatus(node, a);
      throw admissionForbidden(a, 'may only update PVC status');
    }
    if (group === '' && resource === 'serviceaccounts') return admitServiceAccountToken(node, a);
    if (group === 'coordination.k8s.io' && resource === 'leases') {
      if (a.namespace !== NODE_LEASE_NAMESPACE) throw admissionForbidden(a, `can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
      return admitNamedAfterNode(node, a, 'node lease');
    }
    if (group === 'storage.k8s.io' && resource === 'csinodes') return admitNamedAfterNode(node, a, 'CSINode');
  });
}
