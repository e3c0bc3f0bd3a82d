/**
 * Conversion between the served RBAC versions and the stored v1 form. v1beta1 has v1's fields;
 * v1alpha1's Subject carries `apiVersion` instead of `apiGroup`, converted as kube's
 * pkg/apis/rbac/v1alpha1 conversion does: users and groups are rbac.authorization.k8s.io (v1alpha1
 * going out), service accounts the core group (`v1` going out); other kinds keep their group as
 * `<group>/` (the group of an unparsable version is lost, as in kube).
 */
import type { KindDefinition, KubeObject } from '../../kind';
import { clone, isObj, str } from '../util';
import { RBAC_GROUP } from './subjects';

export type RbacVersion = 'v1' | 'v1beta1' | 'v1alpha1';

const V1ALPHA1 = `${RBAC_GROUP}/v1alpha1`;

/** the group of a `group/version` or core `version` string; undefined when it cannot be parsed */
function groupOf(apiVersion: string): string | undefined {
  if (apiVersion === '') return '';
  const parts = apiVersion.split('/');
  if (parts.length === 1) return '';
  if (parts.length === 2) return parts[0];
  return undefined;
}

/** a v1alpha1 subject in the v1 form */
export function subjectToV1(subject: unknown): unknown {
  if (!isObj(subject)) return subject;
  const { apiVersion, ...rest } = subject;
  let group: string | undefined;
  if (subject.kind === 'ServiceAccount') group = '';
  else if (subject.kind === 'User' || subject.kind === 'Group') group = RBAC_GROUP;
  else group = groupOf(str(apiVersion));
  return group ? { kind: subject.kind, apiGroup: group, ...rest } : rest;
}

/** a v1 subject in the v1alpha1 form */
export function subjectFromV1(subject: unknown): unknown {
  if (!isObj(subject)) return subject;
  const { apiGroup, ...rest } = subject;
  const group = str(apiGroup);
  let apiVersion: string;
  if (subject.kind === 'ServiceAccount' && group === '') apiVersion = 'v1';
  else if ((subject.kind === 'User' || subject.kind === 'Group') && group === RBAC_GROUP) apiVersion = V1ALPHA1;
  else apiVersion = group === '' ? '' : `${group}/`;
  return apiVersion ? { kind: subject.kind, apiVersion, ...rest } : rest;
}

function mapSubjects(obj: KubeObject, f: (s: unknown) => unknown): void {
  if (Array.isArray(obj.subjects)) obj.subjects = obj.subjects.map(f);
}

/** the stored (v1) form of an object of `version` */
export function toV1(obj: KubeObject, version: RbacVersion): KubeObject {
  const out = clone(obj);
  out.apiVersion = `${RBAC_GROUP}/v1`;
  if (version === 'v1alpha1') mapSubjects(out, subjectToV1);
  return out;
}

/** a stored (v1) object in `version` */
export function fromV1(obj: KubeObject, version: RbacVersion): KubeObject {
  const out = clone(obj);
  out.apiVersion = `${RBAC_GROUP}/${version}`;
  if (version === 'v1alpha1') mapSubjects(out, subjectFromV1);
  return out;
}

/** the subjects of an object of `version`, in the v1 form validation reads */
export function subjectsAsV1(obj: KubeObject, version: RbacVersion): unknown[] {
  const subjects = Array.isArray(obj.subjects) ? obj.subjects : [];
  return version === 'v1alpha1' ? subjects.map(subjectToV1) : subjects;
}

/**
 * What the four RBAC kinds share in every version: stored once as v1 in their resource, names that
 * are any valid path segment (kube's ValidateRBACName), no generation, no status.
 */
export function rbacKindBase(kind: string, version: RbacVersion, resource: string, namespaced: boolean): Omit<KindDefinition, 'strategy'> {
  return {
    group: RBAC_GROUP,
    version,
    kind,
    listKind: `${kind}List`,
    resource,
    singular: resource.slice(0, -1),
    namespaced,
    nameValidation: 'pathSegment',
    shortNames: [],
    categories: [],
    storage: { group: RBAC_GROUP, resource },
    storageVersion: 'v1',
    fromStorage: (obj) => fromV1(obj, version),
    toStorage: (obj) => toV1(obj, version),
    schemaName: `io.k8s.api.rbac.${version}.${kind}`,
    tracksGeneration: false,
    statusSubresource: false,
  };
}
