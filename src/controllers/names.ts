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
