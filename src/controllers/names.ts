/**
 * The controllers kube's controller manager knows (spec 3, 1.1), which run by default, and
 * `--controllers` as kube reads it: `*` is every controller on by default, `foo` turns foo on,
 * `-foo` turns it off, the first mention of a name wins, and a name kube does not know is an error.
 */
export const KNOWN_CONTROLLERS: readonly string[] = Object.freeze([
  'attachdetach', 'bootstrapsigner', 'cloud-node-lifecycle', 'clusterrole-aggregation', 'cronjob', 'csrapproving',
  'csrcleaner', 'csrsigning', 'daemonset', 'deployment', 'disruption', 'endpoint', 'endpointslice',
  'endpointslicemirroring', 'ephemeral-volume', 'garbagecollector', 'horizontalpodautoscaling', 'job', 'namespace',
  'nodeipam', 'nodelifecycle', 'persistentvolume-binder', 'persistentvolume-expander', 'podgc', 'pv-protection',
  'pvc-protection', 'replicaset', 'replicationcontroller', 'resourcequota', 'root-ca-cert-publisher', 'route', 'service',
  'serviceaccount', 'serviceaccount-token', 'statefulset', 'tokencleaner', 'ttl', 'ttl-after-finished',
]);

export const DISABLED_BY_DEFAULT: readonly string[] = Object.freeze(['bootstrapsigner', 'tokencleaner']);

/** the problem with a --controllers value, or undefined (kube's wording) */
export function controllersFlagProblem(values: readonly string[]): string | undefined {
  for (const v of values) {
    const name = v.startsWith('-') ? v.slice(1) : v;
    if (name !== '*' && !KNOWN_CONTROLLERS.includes(name)) return `"${name}" is not in the list of known controllers`;
  }
  return undefined;
}

/** kube's IsControllerEnabled */
export function controllerEnabled(name: string, values: readonly string[]): boolean {
  let star = false;
  for (const v of values) {
    if (v === name) return true;
    if (v === `-${name}`) return false;
    if (v === '*') star = true;
  }
  return star && !DISABLED_BY_DEFAULT.includes(name);
}

/**
 * The service account each controller acts as under --use-service-account-credentials (kube's
 * ClientBuilder names, which the bootstrap policy's system:controller:* roles are bound to). The
 * service account token controller is absent: it mints the others' tokens, so it uses the
 * controller manager's own credentials, as in kube.
 */
export const CONTROLLER_SERVICE_ACCOUNTS: ReadonlyMap<string, string> = new Map([
  ['attachdetach', 'attachdetach-controller'],
  ['bootstrapsigner', 'bootstrap-signer'],
  ['cloud-node-lifecycle', 'cloud-node-lifecycle-controller'],
  ['clusterrole-aggregation', 'clusterrole-aggregation-controller'],
  ['cronjob', 'cronjob-controller'],
  ['csrapproving', 'certificate-controller'],
  ['csrcleaner', 'certificate-controller'],
  ['csrsigning', 'certificate-controller'],
  ['daemonset', 'daemon-set-controller'],
  ['deployment', 'deployment-controller'],
  ['disruption', 'disruption-controller'],
  ['endpoint', 'endpoint-controller'],
  ['endpointslice', 'endpointslice-controller'],
  ['endpointslicemirroring', 'endpointslicemirroring-controller'],
  ['ephemeral-volume', 'ephemeral-volume-controller'],
  ['garbagecollector', 'generic-garbage-collector'],
  ['horizontalpodautoscaling', 'horizontal-pod-autoscaler'],
  ['job', 'job-controller'],
  ['namespace', 'namespace-controller'],
  ['nodeipam', 'node-controller'],
  ['nodelifecycle', 'node-controller'],
  ['persistentvolume-binder', 'persistent-volume-binder'],
  ['persistentvolume-expander', 'expand-controller'],
  ['podgc', 'pod-garbage-collector'],
  ['pv-protection', 'pv-protection-controller'],
  ['pvc-protection', 'pvc-protection-controller'],
  ['replicaset', 'replicaset-controller'],
  ['replicationcontroller', 'replication-controller'],
  ['resourcequota', 'resourcequota-controller'],
  ['root-ca-cert-publisher', 'root-ca-cert-publisher'],
  ['route', 'route-controller'],
  ['service', 'service-controller'],
  ['serviceaccount', 'service-account-controller'],
  ['statefulset', 'statefulset-controller'],
  ['tokencleaner', 'token-cleaner'],
  ['ttl', 'ttl-controller'],
  ['ttl-after-finished', 'ttl-after-finished-controller'],
]);
