/**
 * PodSecurityPolicy (kube 1.20's plugin/pkg/admission/security/podsecuritypolicy). The policies a
 * pod may be checked against are those the requesting user or the pod's service account may `use`
 * (asked of the authorizer). Tried in name order, a policy first fills in its defaults (runAsUser,
 * fsGroup, supplementalGroups, capabilities, readOnlyRootFilesystem, allowPrivilegeEscalation) on
 * a copy of the pod and then validates it; the first policy that admits the pod unchanged wins,
 * else the first that admits it with changes (only on create). The pod is annotated
 * kubernetes.io/psp with the policy's name. None: 403 `unable to validate against any pod security
 * policy: [...]` listing the violations of the usable policies (an empty list when there is no
 * policy at all, as kube answers). Updates are validated without changes, the pod's own policy first.
 *
 * Covered: privileged, hostNetwork/PID/IPC, hostPorts, volumes, allowedHostPaths (and their readOnly), runAsUser
 * (MustRunAs, MustRunAsNonRoot, RunAsAny), runAsGroup, fsGroup and supplementalGroups (MustRunAs,
 * MayRunAs, RunAsAny), capabilities, readOnlyRootFilesystem, allowPrivilegeEscalation. Not yet: seLinux
 * MustRunAs, allowedProcMountTypes, sysctls, AppArmor/seccomp annotations, flexVolumes, CSI drivers.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/kind';
import type { UserInfo } from '../../api/reviews/authorizer';
import type { Admission, AdmissionAttributes } from '../types';
import type { AdmissionPluginContext, ResourceRef } from '../context';
import { admissionForbidden, isResource } from '../forbidden';
import type { Container, PodSpec } from './pod';
import { podSpec } from './pod';
import { isObj } from './plugin-config';
import type { Obj } from './plugin-config';

const PSP_ANNOTATION = 'kubernetes.io/psp';
const PSPS: ResourceRef = { group: 'policy', version: 'v1beta1', resource: 'podsecuritypolicies' };

interface IdRange { min: number; max: number }

interface PolicySpec {
  privileged?: boolean;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostPorts?: IdRange[];
  volumes?: string[];
  allowedHostPaths?: Array<{ pathPrefix?: string; readOnly?: boolean }>;
  allowedCapabilities?: string[];
  defaultAddCapabilities?: string[];
  requiredDropCapabilities?: string[];
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  defaultAllowPrivilegeEscalation?: boolean;
  runAsUser?: { rule?: string; ranges?: IdRange[] };
  runAsGroup?: { rule?: string; ranges?: IdRange[] };
  fsGroup?: { rule?: string; ranges?: IdRange[] };
  supplementalGroups?: { rule?: string; ranges?: IdRange[] };
}

/** Go's rendering of a field.Error value: strings quoted, null for nil */
const shown = (v: unknown): string => (v === undefined || v === null ? '"null"' : typeof v === 'string' ? JSON.stringify(v) : String(v));
const invalid = (path: string, value: unknown, detail: string): string => `${path}: Invalid value: ${shown(value)}: ${detail}`;
/** Go's %v of []IDRange */
const rangesText = (r: IdRange[] = []): string => `[${r.map((x) => `{${x.min} ${x.max}}`).join(' ')}]`;
const int64s = (g: number[] | undefined): string => (g && g.length ? `[]int64{${g.join(', ')}}` : '[]int64(nil)');
const inRanges = (v: number, r: IdRange[] = []): boolean => r.some((x) => v >= x.min && v <= x.max);

function scOf(holder: { securityContext?: Record<string, unknown> }): Obj {
  if (!isObj(holder.securityContext)) holder.securityContext = {};
  return holder.securityContext;
}

/** the volume's type: the name of its source field (hostPath, emptyDir, secret, ...) */
const volumeType = (v: Obj): string => Object.keys(v).find((k) => k !== 'name') ?? '';

function sortedSet(list: unknown): string[] {
  return Array.isArray(list) ? [...new Set(list.map(String))].sort() : [];
}

/** kube's provider DefaultPodSecurityContext + DefaultContainerSecurityContext, in place */
function applyDefaults(p: PolicySpec, spec: PodSpec): void {
  const psc = spec.securityContext && isObj(spec.securityContext) ? spec.securityContext : undefined;
  const podSc = () => scOf(spec);
  if (p.fsGroup?.rule === 'MustRunAs' && (psc?.fsGroup === undefined || psc.fsGroup === null) && p.fsGroup.ranges?.length) podSc().fsGroup = p.fsGroup.ranges[0].min;
  if (p.supplementalGroups?.rule === 'MustRunAs' && !(Array.isArray(psc?.supplementalGroups) && psc!.supplementalGroups.length) && p.supplementalGroups.ranges?.length) {
    podSc().supplementalGroups = [p.supplementalGroups.ranges[0].min];
  }
  for (const c of containersOf(spec).map((x) => x.container)) {
    const podLevel = isObj(spec.securityContext) ? spec.securityContext : {};
    const sc = isObj(c.securityContext) ? c.securityContext : {};
    const set = (k: string, v: unknown) => void (scOf(c)[k] = v);
    const runAsUser = sc.runAsUser ?? podLevel.runAsUser;
    if (runAsUser === undefined || runAsUser === null) {
      if (p.runAsUser?.rule === 'MustRunAs' && p.runAsUser.ranges?.length) set('runAsUser', p.runAsUser.ranges[0].min);
      else if (p.runAsUser?.rule === 'MustRunAsNonRoot' && (sc.runAsNonRoot ?? podLevel.runAsNonRoot) == null) set('runAsNonRoot', true);
    }
    if (p.runAsGroup?.rule === 'MustRunAs' && (sc.runAsGroup ?? podLevel.runAsGroup) == null && p.runAsGroup.ranges?.length) set('runAsGroup', p.runAsGroup.ranges[0].min);
    const caps = isObj(sc.capabilities) ? sc.capabilities : {};
    const add = sortedSet(caps.add);
    const drop = sortedSet(caps.drop);
    const combinedAdd = sortedSet([...add, ...(p.defaultAddCapabilities ?? []).filter((x) => !drop.includes(x))]);
    const combinedDrop = sortedSet([...drop, ...(p.requiredDropCapabilities ?? [])]);
    if (combinedAdd.length !== add.length || combinedDrop.length !== drop.length) set('capabilities', { add: combinedAdd, drop: combinedDrop });
    if (p.readOnlyRootFilesystem && (sc.readOnlyRootFilesystem === undefined || sc.readOnlyRootFilesystem === null)) set('readOnlyRootFilesystem', true);
    if (sc.allowPrivilegeEscalation === undefined || sc.allowPrivilegeEscalation === null) {
      if (p.defaultAllowPrivilegeEscalation !== undefined && p.defaultAllowPrivilegeEscalation !== null) set('allowPrivilegeEscalation', p.defaultAllowPrivilegeEscalation);
      else if (p.allowPrivilegeEscalation === false) set('allowPrivilegeEscalation', false);
    }
  }
}

function containersOf(spec: PodSpec): Array<{ container: Container & { ports?: Array<{ hostPort?: number }> }; path: string }> {
  const out: Array<{ container: Container; path: string }> = [];
  (Array.isArray(spec.initContainers) ? spec.initContainers : []).forEach((c, i) => out.push({ container: c, path: `spec.initContainers[${i}]` }));
  (Array.isArray(spec.containers) ? spec.containers : []).forEach((c, i) => out.push({ container: c, path: `spec.containers[${i}]` }));
  return out;
}

/** kube's provider ValidatePod + ValidateContainer: the violations, in kube's field.Error words */
function violations(p: PolicySpec, spec: PodSpec & { hostNetwork?: boolean; hostPID?: boolean; hostIPC?: boolean }): string[] {
  const errs: string[] = [];
  const psc = isObj(spec.securityContext) ? spec.securityContext : {};
  const groupCheck = (field: 'fsGroup' | 'supplementalGroups', groups: number[] | undefined) => {
    const s = p[field];
    if (!s || (s.rule !== 'MustRunAs' && s.rule !== 'MayRunAs')) return;
    if (!groups || groups.length === 0) {
      if (s.rule === 'MustRunAs') errs.push(`spec.securityContext.${field}: Invalid value: ${int64s(groups)}: unable to validate empty groups against required ranges`);
      return;
    }
    for (const g of groups) {
      if (!inRanges(g, s.ranges)) errs.push(`spec.securityContext.${field}: Invalid value: ${int64s(groups)}: group ${g} must be in the ranges: ${rangesText(s.ranges)}`);
    }
  };
  groupCheck('fsGroup', typeof psc.fsGroup === 'number' ? [psc.fsGroup] : undefined);
  groupCheck('supplementalGroups', Array.isArray(psc.supplementalGroups) ? (psc.supplementalGroups as number[]) : undefined);
  if (spec.hostNetwork === true && !p.hostNetwork) errs.push(invalid('spec.securityContext.hostNetwork', true, 'Host network is not allowed to be used'));
  if (spec.hostPID === true && !p.hostPID) errs.push(invalid('spec.securityContext.hostPID', true, 'Host PID is not allowed to be used'));
  if (spec.hostIPC === true && !p.hostIPC) errs.push(invalid('spec.securityContext.hostIPC', true, 'Host IPC is not allowed to be used'));
  const allowedVolumes = p.volumes ?? [];
  (Array.isArray(spec.volumes) ? spec.volumes : []).forEach((v, i) => {
    const type = volumeType(v);
    if (!allowedVolumes.includes('*') && !allowedVolumes.includes(type)) {
      errs.push(invalid(`spec.volumes[${i}]`, type, `${type} volumes are not allowed to be used`));
      return;
    }
    const hostPath = type === 'hostPath' && isObj(v.hostPath) ? String(v.hostPath.path ?? '') : undefined;
    if (hostPath === undefined || !p.allowedHostPaths?.length) return;
    const matching = p.allowedHostPaths.filter((a) => pathAllowed(a.pathPrefix ?? '', hostPath));
    if (matching.length === 0) {
      errs.push(invalid(`spec.volumes[${i}].hostPath.pathPrefix`, hostPath, 'is not allowed to be used'));
    } else if (matching.every((a) => a.readOnly === true)) {
      // only read-only entries allow the path: every mount of the volume must be read-only
      for (const { container, path } of containersOf(spec)) {
        (container.volumeMounts ?? []).forEach((m, j) => {
          if (m.name === v.name && m.readOnly !== true) errs.push(invalid(`${path}.volumeMounts[${j}].readOnly`, false, 'must be read-only'));
        });
      }
    }
  });
  for (const { container: c, path } of containersOf(spec)) {
    const sc = isObj(c.securityContext) ? c.securityContext : {};
    const scPath = `${path}.securityContext`;
    const runAsUser = (sc.runAsUser ?? psc.runAsUser) as number | undefined | null;
    const runAsNonRoot = (sc.runAsNonRoot ?? psc.runAsNonRoot) as boolean | undefined | null;
    if (p.runAsUser?.rule === 'MustRunAs') {
      if (runAsUser === undefined || runAsUser === null) errs.push(`${scPath}.runAsUser: Required value`);
      else if (!inRanges(runAsUser, p.runAsUser.ranges)) errs.push(invalid(`${scPath}.runAsUser`, runAsUser, `must be in the ranges: ${rangesText(p.runAsUser.ranges)}`));
    } else if (p.runAsUser?.rule === 'MustRunAsNonRoot') {
      if (runAsNonRoot === false) errs.push(invalid(`${scPath}.runAsNonRoot`, false, 'must be true'));
      else if (runAsUser === 0) errs.push(invalid(`${scPath}.runAsUser`, 0, 'running with the root UID is forbidden'));
      else if ((runAsUser === undefined || runAsUser === null) && runAsNonRoot == null) errs.push(`${scPath}.runAsNonRoot: Required value: must be true`);
    }
    const runAsGroup = (sc.runAsGroup ?? psc.runAsGroup) as number | undefined | null;
    if (p.runAsGroup?.rule === 'MustRunAs' || p.runAsGroup?.rule === 'MayRunAs') {
      if (runAsGroup == null) {
        if (p.runAsGroup.rule === 'MustRunAs') errs.push(`${scPath}.runAsGroup: Invalid value: []int64(nil): unable to validate empty groups against required ranges`);
      } else if (!inRanges(runAsGroup, p.runAsGroup.ranges)) {
        errs.push(`${scPath}.runAsGroup: Invalid value: []int64{${runAsGroup}}: group ${runAsGroup} must be in the ranges: ${rangesText(p.runAsGroup.ranges)}`);
      }
    }
    if (sc.privileged === true && !p.privileged) errs.push(invalid(`${scPath}.privileged`, true, 'Privileged containers are not allowed'));
    const caps = isObj(sc.capabilities) ? sc.capabilities : {};
    const allowed = [...(p.allowedCapabilities ?? []), ...(p.defaultAddCapabilities ?? [])];
    for (const cap of sortedSet(caps.add)) {
      if (!allowed.includes('*') && !allowed.includes(cap)) errs.push(invalid(`${scPath}.capabilities.add`, cap, 'capability may not be added'));
    }
    const drop = sortedSet(caps.drop);
    for (const cap of p.requiredDropCapabilities ?? []) {
      if (!drop.includes(cap) && !drop.includes('ALL')) {
        errs.push(`${scPath}.capabilities.drop: Invalid value: []core.Capability{${drop.map((d) => JSON.stringify(d)).join(', ')}}: ${cap} is required to be dropped but was not found`);
      }
    }
    for (const port of Array.isArray(c.ports) ? c.ports : []) {
      if (port.hostPort && !inRanges(port.hostPort, p.hostPorts)) {
        const ranges = (p.hostPorts ?? []).map((r) => (r.min === r.max ? String(r.min) : `${r.min}-${r.max}`)).join(',');
        errs.push(invalid(`${path}.hostPort`, port.hostPort, `Host port ${port.hostPort} is not allowed to be used. Allowed ports: [${ranges}]`));
      }
    }
    if (p.readOnlyRootFilesystem) {
      if (sc.readOnlyRootFilesystem === undefined || sc.readOnlyRootFilesystem === null) errs.push(invalid(`${scPath}.readOnlyRootFilesystem`, null, 'ReadOnlyRootFilesystem may not be nil and must be set to true'));
      else if (sc.readOnlyRootFilesystem !== true) errs.push(invalid(`${scPath}.readOnlyRootFilesystem`, sc.readOnlyRootFilesystem, 'ReadOnlyRootFilesystem must be set to true'));
    }
    if (p.allowPrivilegeEscalation === false && sc.allowPrivilegeEscalation !== false) {
      errs.push(invalid(`${scPath}.allowPrivilegeEscalation`, sc.allowPrivilegeEscalation ?? null, 'Allowing privilege escalation for containers is not allowed'));
    }
  }
  return errs;
}

/** kube's hostPath prefix match: whole path segments, so /foo allows /foo/bar but not /foobar */
function pathAllowed(prefix: string, p: string): boolean {
  const a = prefix.replace(/\/+$/, '').split('/');
  const b = p.replace(/\/+$/, '').split('/');
  return a.length <= b.length && a.every((seg, i) => seg === b[i]);
}

function serviceAccountUser(pod: KubeObject, namespace: string): UserInfo | undefined {
  const sa = podSpec(pod).serviceAccountName || podSpec(pod).serviceAccount;
  if (!sa) return undefined;
  return { name: `system:serviceaccount:${namespace}:${sa}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

export function podSecurityPolicy(ctx: AdmissionPluginContext): Admission {
  /** may the caller or the pod's service account `use` the policy? */
  const usable = async (a: AdmissionAttributes, name: string): Promise<boolean> => {
    if (!ctx.authorizer) return true;
    for (const user of [a.user, serviceAccountUser(a.object!, a.namespace)]) {
      if (!user) continue;
      const d = await ctx.authorizer.authorize({ user, verb: 'use', resourceRequest: true, namespace: a.namespace, apiGroup: 'policy', apiVersion: '*', resource: 'podsecuritypolicies', name });
      if (d.allowed) return true;
    }
    return false;
  };

  /** the pod as the chosen policy leaves it, and its name; or the violations */
  const decide = async (a: AdmissionAttributes, mayMutate: boolean): Promise<{ pod: KubeObject; policy: string } | { errors: string[] }> => {
    const pod = a.object!;
    const hint = mayMutate ? '' : pod.metadata?.annotations?.[PSP_ANNOTATION] ?? '';
    const policies = (await ctx.objects.list(PSPS)).sort((x, y) => {
      const nx = x.metadata?.name ?? '';
      const ny = y.metadata?.name ?? '';
      if (hint && (nx === hint) !== (ny === hint)) return nx === hint ? -1 : 1;
      return nx < ny ? -1 : nx > ny ? 1 : 0;
    });
    const failures: Array<{ name: string; errors: string[] }> = [];
    let mutated: { pod: KubeObject; policy: string } | undefined;
    for (const policy of policies) {
      const name = policy.metadata?.name ?? '';
      const spec = (isObj(policy.spec) ? policy.spec : {}) as PolicySpec;
      const copy = structuredClone(pod);
      applyDefaults(spec, podSpec(copy));
      const errors = violations(spec, podSpec(copy) as PodSpec & { hostNetwork?: boolean });
      if (errors.length) {
        failures.push({ name, errors });
        continue;
      }
      const changed = !isDeepStrictEqual(copy.spec, pod.spec);
      if (changed && !mayMutate) continue;
      if (!(await usable(a, name))) continue;
      if (!changed) return { pod: copy, policy: name };
      mutated ??= { pod: copy, policy: name };
    }
    if (mutated) return mutated;
    const errors: string[] = [];
    for (const f of failures) if (await usable(a, f.name)) errors.push(...f.errors);
    return { errors };
  };

  const applies = (a: AdmissionAttributes) => isResource(a, '', 'pods') && a.object !== undefined && (a.operation === 'CREATE' || a.operation === 'UPDATE');
  const refuse = (a: AdmissionAttributes, errors: string[]) => admissionForbidden(a, `unable to validate against any pod security policy: [${errors.join(' ')}]`);

  return {
    async admit(a) {
      if (!applies(a) || a.operation !== 'CREATE') return;
      const result = await decide(a, true);
      if ('errors' in result) throw refuse(a, result.errors);
      a.object!.spec = result.pod.spec;
      const meta = (a.object!.metadata ??= {});
      meta.annotations = { ...(meta.annotations ?? {}), [PSP_ANNOTATION]: result.policy };
    },
    async validate(a) {
      if (!applies(a)) return;
      const result = await decide(a, false);
      if ('errors' in result) throw refuse(a, result.errors);
    },
  };
}
