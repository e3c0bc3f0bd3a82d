/**
 * What a pod and a persistent volume point at, as kube's node graph populator reads them
 * (podutil.VisitPodSecretNames / VisitPodConfigmapNames, VisitPVSecretNames): the edges along which
 * a node may read an object because something bound to it uses it.
 */
import type { KubeObject } from '../../api/kind';
import { isObj, str } from '../../api/kinds/util';
import type { Obj } from '../../api/kinds/util';

/** the objects a pod uses, by name (all in the pod's namespace) */
export interface PodReferences {
  secrets: Set<string>;
  configmaps: Set<string>;
  persistentvolumeclaims: Set<string>;
  serviceaccounts: Set<string>;
}

const items = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const add = (set: Set<string>, name: unknown): void => {
  if (typeof name === 'string' && name !== '') set.add(name);
};

/** volume sources whose secret the node reads when it mounts them (kube's list) */
const SECRET_VOLUME_SOURCES = ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos', 'csi'];

/** the secrets, configmaps, claims and service account a pod references (volumes, env, envFrom, pull secrets) */
export function podReferences(pod: KubeObject): PodReferences {
  const refs: PodReferences = { secrets: new Set(), configmaps: new Set(), persistentvolumeclaims: new Set(), serviceaccounts: new Set() };
  const spec = isObj(pod.spec) ? pod.spec : {};
  add(refs.serviceaccounts, spec.serviceAccountName);
  for (const s of items(spec.imagePullSecrets)) add(refs.secrets, s.name);
  for (const v of items(spec.volumes)) {
    if (isObj(v.secret)) add(refs.secrets, v.secret.secretName);
    if (isObj(v.configMap)) add(refs.configmaps, v.configMap.name);
    if (isObj(v.persistentVolumeClaim)) add(refs.persistentvolumeclaims, v.persistentVolumeClaim.claimName);
    // kube's generic ephemeral volumes: the claim is named <pod>-<volume>
    if (isObj(v.ephemeral) && str(v.name) !== '') add(refs.persistentvolumeclaims, `${str(pod.metadata?.name)}-${str(v.name)}`);
    if (isObj(v.projected)) {
      for (const src of items(v.projected.sources)) {
        if (isObj(src.secret)) add(refs.secrets, src.secret.name);
        if (isObj(src.configMap)) add(refs.configmaps, src.configMap.name);
      }
    }
    for (const key of SECRET_VOLUME_SOURCES) {
      const source = v[key];
      if (!isObj(source)) continue;
      add(refs.secrets, source.secretName);
      for (const refKey of ['secretRef', 'nodePublishSecretRef']) if (isObj(source[refKey])) add(refs.secrets, (source[refKey] as Obj).name);
    }
  }
  for (const c of [...items(spec.initContainers), ...items(spec.containers), ...items(spec.ephemeralContainers)]) {
    for (const e of items(c.env)) {
      const from = isObj(e.valueFrom) ? e.valueFrom : {};
      if (isObj(from.secretKeyRef)) add(refs.secrets, from.secretKeyRef.name);
      if (isObj(from.configMapKeyRef)) add(refs.configmaps, from.configMapKeyRef.name);
    }
    for (const e of items(c.envFrom)) {
      if (isObj(e.secretRef)) add(refs.secrets, e.secretRef.name);
      if (isObj(e.configMapRef)) add(refs.configmaps, e.configMapRef.name);
    }
  }
  return refs;
}

/** the claim a persistent volume is bound to (spec.claimRef), as `namespace/name` */
export function volumeClaim(pv: KubeObject): string | undefined {
  const ref = isObj(pv.spec) && isObj(pv.spec.claimRef) ? pv.spec.claimRef : undefined;
  if (!ref || str(ref.name) === '' || str(ref.namespace) === '') return undefined;
  return `${str(ref.namespace)}/${str(ref.name)}`;
}

/**
 * the secrets a persistent volume's source names, as `namespace/name`: a reference without a
 * namespace means the bound claim's namespace (azureFile without secretNamespace: "default"), as kube
 * reads them
 */
export function volumeSecrets(pv: KubeObject): string[] {
  const spec = isObj(pv.spec) ? pv.spec : {};
  const claimNamespace = volumeClaim(pv)?.split('/')[0] ?? '';
  const out = new Set<string>();
  const ref = (r: unknown, fallback: string) => {
    if (!isObj(r) || str(r.name) === '') return;
    const ns = str(r.namespace) || fallback;
    if (ns !== '') out.add(`${ns}/${str(r.name)}`);
  };
  if (isObj(spec.azureFile) && str(spec.azureFile.secretName) !== '') {
    out.add(`${str(spec.azureFile.secretNamespace) || 'default'}/${str(spec.azureFile.secretName)}`);
  }
  for (const key of ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos']) {
    const source = spec[key];
    if (isObj(source)) ref(source.secretRef, claimNamespace);
  }
  if (isObj(spec.csi)) {
    for (const key of ['controllerPublishSecretRef', 'nodeStageSecretRef', 'nodePublishSecretRef', 'controllerExpandSecretRef', 'nodeExpandSecretRef']) {
      ref(spec.csi[key], '');
    }
  }
  return [...out];
}
