/**
 * The local APIServices the server wants: one per group/version the Scheme serves, as kube-apiserver
 * registers them. Built-in group/versions (served from the start) are registered "onstart" with
 * kube's priority table, and skipped when the table has no entry, as kube skips them; custom
 * resource group/versions (added to the Scheme at runtime) are kept in step ("true") with kube's
 * fixed custom resource priority. apiregistration.k8s.io itself has none, as in kube.
 */
import type { Scheme } from '../api/scheme';
import type { APIService } from './apiservice';
import { APIREGISTRATION_GROUP, AUTOMANAGED_LABEL, MANAGED_CONTINUOUSLY, MANAGED_ON_START, apiServiceName } from './apiservice';
import { CUSTOM_RESOURCE_PRIORITY, builtinPriority } from './priorities';
import type { Priority } from './priorities';

export interface DesiredAPIService {
  /** `onstart` (built-in) or `true` (custom resources) */
  mode: typeof MANAGED_ON_START | typeof MANAGED_CONTINUOUSLY;
  object: APIService;
}

export function localAPIService(group: string, version: string, priority: Priority, mode: DesiredAPIService['mode']): APIService {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: apiServiceName(group, version), labels: { [AUTOMANAGED_LABEL]: mode } },
    spec: { group, version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
  };
}

/**
 * the wanted local APIServices by name; `builtin` says which group/versions (`group/version`, `v1`
 * for core) are the server's own
 */
export function desiredLocalAPIServices(scheme: Scheme, builtin: ReadonlySet<string>): Map<string, DesiredAPIService> {
  const out = new Map<string, DesiredAPIService>();
  for (const g of scheme.groups()) {
    if (g.name === APIREGISTRATION_GROUP) continue;
    for (const version of g.versions) {
      const gv = g.name ? `${g.name}/${version}` : version;
      let desired: DesiredAPIService | undefined;
      if (builtin.has(gv)) {
        const priority = builtinPriority(g.name, version);
        if (priority) desired = { mode: MANAGED_ON_START, object: localAPIService(g.name, version, priority, MANAGED_ON_START) };
      } else {
        desired = { mode: MANAGED_CONTINUOUSLY, object: localAPIService(g.name, version, CUSTOM_RESOURCE_PRIORITY, MANAGED_CONTINUOUSLY) };
      }
      if (desired) out.set(desired.object.metadata.name, desired);
    }
  }
  return out;
}
