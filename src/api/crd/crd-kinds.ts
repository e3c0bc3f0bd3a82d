/**
 * apiextensions.k8s.io/v1 and v1beta1 CustomResourceDefinition, stored as v1. kube's CRD strategy:
 * a create starts with an empty status whose storedVersions is the storage version; spec updates
 * keep the status and add a new storage version to storedVersions; status writes keep spec,
 * labels, annotations, owner references and generation; the first DELETE adds the
 * customresourcecleanup finalizer and a Terminating condition (crd-finalizer.ts deletes the
 * objects, then the finalizer). Validation runs on kube's internal form (crd-validation.ts).
 */
import type { KindDefinition, KubeObject, KindStrategy } from '../kind';
import type { RegistryKindOptions } from '../registry/context';
import { timestamp } from '../registry/meta';
import { CLEANUP_FINALIZER, GROUP, isObject } from './types';
import type { CrdStatus, InternalSpec, SpecV1, SpecV1beta1 } from './types';
import { defaultCrdV1, defaultCrdV1beta1 } from './crd-defaults';
import { v1ToInternal, v1ToV1beta1, v1beta1ToInternal, v1beta1ToV1 } from './crd-conversion';
import { validateCrd, validateCrdStatus } from './crd-validation';
import type { RequestVersion } from './crd-validation';
import { setCondition } from './conditions';

export const CRD_RESOURCE = 'customresourcedefinitions';

const internalOf = (version: RequestVersion, obj: KubeObject): InternalSpec => {
  const spec = isObject(obj.spec) ? obj.spec : {};
  return version === 'v1' ? v1ToInternal(spec as SpecV1) : v1beta1ToInternal(spec as SpecV1beta1);
};

/** the storage version joins storedVersions (kube's PrepareForCreate/Update) */
function recordStorageVersion(obj: KubeObject): void {
  const spec = isObject(obj.spec) ? (obj.spec as SpecV1 | SpecV1beta1) : {};
  const versions = Array.isArray(spec.versions) && spec.versions.length > 0 ? spec.versions : 'version' in spec && spec.version ? [{ name: spec.version, storage: true }] : [];
  const storage = versions.find((v) => isObject(v) && v.storage === true);
  if (!storage?.name) return;
  const status = (isObject(obj.status) ? obj.status : (obj.status = {})) as CrdStatus;
  if (!Array.isArray(status.storedVersions)) status.storedVersions = [];
  if (!status.storedVersions.includes(storage.name)) status.storedVersions.push(storage.name);
}

function strategy(version: RequestVersion): KindStrategy {
  return {
    defaults: version === 'v1' ? defaultCrdV1 : defaultCrdV1beta1,
    prepareForCreate(obj) {
      obj.status = {};
      recordStorageVersion(obj);
    },
    prepareForUpdate(obj, old) {
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
      recordStorageVersion(obj);
    },
    prepareForStatusUpdate(obj, old) {
      const meta = obj.metadata!;
      const oldMeta = old.metadata ?? {};
      for (const k of ['labels', 'annotations', 'ownerReferences', 'generation'] as const) {
        if (oldMeta[k] === undefined) delete meta[k];
        else meta[k] = structuredClone(oldMeta[k]) as never;
      }
    },
    validate(obj, old) {
      return validateCrd({ obj, spec: internalOf(version, obj), old, oldSpec: old ? internalOf(version, old) : undefined, request: version });
    },
    validateStatus: (obj) => validateCrdStatus(obj),
  };
}

/** kube's CRD REST Delete: the first DELETE marks the definition for cleanup */
function prepareForDelete(obj: KubeObject, now: Date): void {
  const meta = obj.metadata!;
  const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
  if (!finalizers.includes(CLEANUP_FINALIZER)) meta.finalizers = [...finalizers, CLEANUP_FINALIZER];
  setCondition(obj, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' }, timestamp(now));
}

function crdKind(version: RequestVersion): KindDefinition & RegistryKindOptions {
  const kind: KindDefinition & RegistryKindOptions = {
    group: GROUP,
    version,
    kind: 'CustomResourceDefinition',
    listKind: 'CustomResourceDefinitionList',
    resource: CRD_RESOURCE,
    singular: 'customresourcedefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    storage: { group: GROUP, resource: CRD_RESOURCE },
    storageVersion: 'v1',
    schemaName: `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.CustomResourceDefinition`,
    tracksGeneration: true,
    statusSubresource: true,
    strategy: strategy(version),
    defaultGarbageCollectionPolicy: 'Background',
    allowUnconditionalUpdate: false,
    prepareForDelete,
  };
  if (version === 'v1beta1') {
    kind.toStorage = (obj) => ({ ...obj, apiVersion: `${GROUP}/v1`, spec: v1beta1ToV1(isObject(obj.spec) ? (obj.spec as SpecV1beta1) : {}) });
    kind.fromStorage = (obj) => ({ ...obj, spec: v1ToV1beta1(isObject(obj.spec) ? (obj.spec as SpecV1) : {}) });
  }
  return kind;
}

/** apiextensions.k8s.io in kube's discovery order: v1 (preferred), then v1beta1 */
export function apiextensionsKinds(): KindDefinition[] {
  return [crdKind('v1'), crdKind('v1beta1')];
}
