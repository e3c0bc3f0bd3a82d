/**
 * kube's names for a group/version in OpenAPI: the operationId infix (`AppsV1`, `CoreV1`,
 * `CoordinationV1`), the tag (`apps_v1`, `core_v1`) and the URL prefix (`/api/v1`, `/apis/apps/v1`).
 */

const capitalize = (s: string): string => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** the group without kube's `.k8s.io` suffix, split on dots: 'coordination.k8s.io' -> ['coordination'] */
function groupWords(group: string): string[] {
  if (group === '') return ['core'];
  return group.replace(/\.k8s\.io$/, '').split('.');
}

/** `AppsV1`, `CoreV1`, `BatchV1beta1`, `FlowcontrolApiserverV1` */
export function operationInfix(group: string, version: string): string {
  return groupWords(group).map(capitalize).join('') + capitalize(version);
}

/** `apps_v1`, `core_v1`, `flowcontrolApiserver_v1` */
export function operationTag(group: string, version: string): string {
  const [first, ...rest] = groupWords(group);
  return first + rest.map(capitalize).join('') + '_' + version;
}

/** `/api/v1` or `/apis/<group>/<version>` */
export function groupVersionPrefix(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** the key of a group-version in the OpenAPI v3 index: `api/v1`, `apis/apps/v1` */
export function groupVersionKey(group: string, version: string): string {
  return groupVersionPrefix(group, version).slice(1);
}
