/**
 * kube's core/v1 defaulting for pod specs (SetDefaults_PodSpec, SetDefaults_Container, probes,
 * volumes), shared by Pod and every pod template. Pod-only extras are in defaultPodOnly.
 */
import { arrAt, ensureObj, isObj, setDefault } from './util';
import type { Obj } from './util';

/** kube's rule: Always when the tag is `latest` or absent (without a digest), else IfNotPresent */
export function defaultPullPolicy(image: unknown): 'Always' | 'IfNotPresent' {
  if (typeof image !== 'string') return 'IfNotPresent';
  let ref = image;
  const at = ref.indexOf('@');
  const hasDigest = at >= 0;
  if (hasDigest) ref = ref.slice(0, at);
  const lastSlash = ref.lastIndexOf('/');
  const colon = ref.indexOf(':', lastSlash + 1);
  const tag = colon >= 0 ? ref.slice(colon + 1) : hasDigest ? '' : 'latest';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultHandler(handler: unknown): void {
  if (!isObj(handler)) return;
  const httpGet = handler.httpGet;
  if (isObj(httpGet)) {
    setDefault(httpGet, 'path', '/');
    setDefault(httpGet, 'scheme', 'HTTP');
  }
}

function defaultProbe(probe: unknown): void {
  if (!isObj(probe)) return;
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
  defaultHandler(probe);
}

function defaultContainer(c: Obj): void {
  if (c.imagePullPolicy === undefined || c.imagePullPolicy === '' || c.imagePullPolicy === null) {
    c.imagePullPolicy = defaultPullPolicy(c.image);
  }
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  // kube serializes the non-pointer resources struct as {}
  setDefault(c, 'resources', {});
  for (const p of arrAt(c, 'ports')) if (isObj(p)) setDefault(p, 'protocol', 'TCP');
  for (const e of arrAt(c, 'env')) {
    const fieldRef = isObj(e) && isObj(e.valueFrom) ? e.valueFrom.fieldRef : undefined;
    if (isObj(fieldRef)) setDefault(fieldRef, 'apiVersion', 'v1');
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (isObj(c.lifecycle)) {
    defaultHandler(c.lifecycle.postStart);
    defaultHandler(c.lifecycle.preStop);
  }
}

const volumeSources = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos',
  'csi', 'ephemeral', 'image',
];

function defaultVolume(v: Obj): void {
  // kube: a volume with no source is an emptyDir
  if (!volumeSources.some((s) => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
  for (const src of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const s = v[src];
    if (isObj(s)) setDefault(s, 'defaultMode', 420);
  }
  if (isObj(v.hostPath)) setDefault(v.hostPath, 'type', '');
  if (isObj(v.projected)) {
    for (const source of arrAt(v.projected, 'sources')) {
      if (isObj(source) && isObj(source.serviceAccountToken)) setDefault(source.serviceAccountToken, 'expirationSeconds', 3600);
    }
  }
}

/** kube's SetDefaults_PodSpec and the defaults of everything inside it */
export function defaultPodSpec(spec: Obj): void {
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  if (spec.restartPolicy === '' || spec.restartPolicy === undefined || spec.restartPolicy === null) spec.restartPolicy = 'Always';
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  if (spec.schedulerName === '' || spec.schedulerName === undefined || spec.schedulerName === null) spec.schedulerName = 'default-scheduler';
  for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
    for (const c of arrAt(spec, key)) if (isObj(c)) defaultContainer(c);
  }
  for (const v of arrAt(spec, 'volumes')) if (isObj(v)) defaultVolume(v);
  if (spec.hostNetwork === true) defaultHostNetworkPorts(spec);
}

/** with hostNetwork the host port is the container port */
function defaultHostNetworkPorts(spec: Obj): void {
  for (const key of ['containers', 'initContainers']) {
    for (const c of arrAt(spec, key)) {
      for (const p of arrAt(c, 'ports')) if (isObj(p) && (p.hostPort === undefined || p.hostPort === 0)) p.hostPort = p.containerPort;
    }
  }
}

/** kube's SetDefaults_Pod additions: requests default to limits, service links on */
export function defaultPodOnly(spec: Obj): void {
  for (const key of ['containers', 'initContainers']) {
    for (const c of arrAt(spec, key)) {
      if (!isObj(c) || !isObj(c.resources) || !isObj(c.resources.limits)) continue;
      const requests = ensureObj(c.resources, 'requests');
      for (const [k, v] of Object.entries(c.resources.limits)) if (requests[k] === undefined) requests[k] = v;
    }
  }
  setDefault(spec, 'enableServiceLinks', true);
}

/** defaults of a PodTemplateSpec: the spec, and the null creationTimestamp kube serializes in templates */
export function defaultPodTemplate(template: Obj): void {
  const meta = ensureObj(template, 'metadata');
  if (!('creationTimestamp' in meta)) meta.creationTimestamp = null;
  defaultPodSpec(ensureObj(template, 'spec'));
}
