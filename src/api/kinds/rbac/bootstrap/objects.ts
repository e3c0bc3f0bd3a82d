/**
 * Builders for the bootstrap RBAC objects: every one carries kube's bootstrapping label and the
 * autoupdate annotation, as kube's bootstrap policy adds them (addDefaultMetadata).
 */
import type { KubeObject } from '../../../kind';
import type { PolicyRule } from '../policy-rule';
import { rule } from '../policy-rule';
import { RBAC_GROUP } from '../subjects';

export const API_VERSION = `${RBAC_GROUP}/v1`;
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
export const BOOTSTRAP_LABELS = Object.freeze({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });

/** kube's verb sets */
export const READ = ['get', 'list', 'watch'];
export const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
export const READ_WRITE = [...READ, ...WRITE];
export const READ_UPDATE = ['get', 'list', 'watch', 'update', 'patch'];

/** kube's eventsRule: recording events in both event APIs */
export const eventsRule = (): PolicyRule => rule('create', 'update', 'patch').groups('', 'events.k8s.io').resources('events').build();

function metadata(name: string, namespace?: string, labels: Record<string, string> = {}) {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { ...labels, ...BOOTSTRAP_LABELS },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

export interface ClusterRoleOptions {
  /** labels besides the bootstrapping one (the aggregate-to-* labels) */
  labels?: Record<string, string>;
  /** aggregationRule selectors, each as matchLabels */
  aggregateFrom?: Array<Record<string, string>>;
}

export function clusterRole(name: string, rules: PolicyRule[], opts: ClusterRoleOptions = {}): KubeObject {
  const obj: KubeObject = { apiVersion: API_VERSION, kind: 'ClusterRole', metadata: metadata(name, undefined, opts.labels), rules };
  if (opts.aggregateFrom) obj.aggregationRule = { clusterRoleSelectors: opts.aggregateFrom.map((matchLabels) => ({ matchLabels })) };
  return obj;
}

export function role(namespace: string, name: string, rules: PolicyRule[]): KubeObject {
  return { apiVersion: API_VERSION, kind: 'Role', metadata: metadata(name, namespace), rules };
}

/** the subjects of a binding under construction, in the order they were added */
export class SubjectList {
  readonly subjects: Array<Record<string, string>> = [];

  users(...names: string[]): this {
    for (const name of names) this.subjects.push({ kind: 'User', apiGroup: RBAC_GROUP, name });
    return this;
  }

  groups(...names: string[]): this {
    for (const name of names) this.subjects.push({ kind: 'Group', apiGroup: RBAC_GROUP, name });
    return this;
  }

  serviceAccount(namespace: string, name: string): this {
    this.subjects.push({ kind: 'ServiceAccount', name, namespace });
    return this;
  }
}

export const subjects = (): SubjectList => new SubjectList();

/** a ClusterRoleBinding named after the ClusterRole it grants */
export function clusterRoleBinding(roleName: string, who: SubjectList = subjects()): KubeObject {
  const obj: KubeObject = {
    apiVersion: API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: metadata(roleName),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: roleName },
  };
  if (who.subjects.length > 0) obj.subjects = who.subjects;
  return obj;
}

/** a RoleBinding of the namespaced Role `roleName`, named after it unless `name` is given */
export function roleBinding(namespace: string, roleName: string, who: SubjectList, name = roleName): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'RoleBinding',
    metadata: metadata(name, namespace),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: roleName },
    subjects: who.subjects,
  };
}
