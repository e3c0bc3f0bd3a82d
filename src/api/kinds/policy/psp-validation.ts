/**
 * kube 1.20's ValidatePodSecurityPolicy (pkg/apis/policy/validation): the id strategies and their
 * ranges, volume types, capabilities against the required drops, privilege escalation, proc mount
 * types, host paths, FlexVolume and CSI drivers, sysctls, RuntimeClasses and the seccomp and
 * AppArmor annotations.
 */
import type { StatusCause } from '../../errors';
import { duplicate, forbidden, invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1123Subdomain } from '../../validation/names';
import { arrAt, isObj, str } from '../util';
import type { Obj } from '../util';

/** kube's psputil.GetAllFSTypesAsSet plus `*`, sorted as Go sorts strings */
const VOLUME_TYPES = [
  '*', 'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephFS', 'cinder', 'configMap', 'csi', 'downwardAPI', 'emptyDir',
  'ephemeral', 'fc', 'flexVolume', 'flocker', 'gcePersistentDisk', 'gitRepo', 'glusterfs', 'hostPath', 'iscsi', 'nfs',
  'persistentVolumeClaim', 'photonPersistentDisk', 'portworxVolume', 'projected', 'quobyte', 'rbd', 'scaleIO', 'secret',
  'storageos', 'vsphereVolume',
];

const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_PATTERN = `(${SYSCTL_SEGMENT}[\\./])*${SYSCTL_SEGMENT}(\\*)?|\\*`;
const SYSCTL_RE = new RegExp(`^(${SYSCTL_PATTERN})$`);

function validateRanges(ranges: unknown[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  ranges.forEach((r, i) => {
    const p = `${field}[${i}]`;
    const o = isObj(r) ? r : {};
    const min = typeof o.min === 'number' ? o.min : 0;
    const max = typeof o.max === 'number' ? o.max : 0;
    if (min < 0) causes.push(invalid(`${p}.min`, min, 'min cannot be negative'));
    if (max < 0) causes.push(invalid(`${p}.max`, max, 'max cannot be negative'));
    if (min > max) causes.push(invalid(p, min, 'min cannot be greater than max'));
  });
  return causes;
}

/** one id strategy: a known rule, valid ranges (`optional`: a nil strategy is fine) */
function validateStrategy(value: unknown, field: string, rules: string[], optional = false): StatusCause[] {
  if (optional && (value === undefined || value === null)) return [];
  const s = isObj(value) ? value : {};
  const causes: StatusCause[] = [];
  if (!rules.includes(str(s.rule))) causes.push(notSupported(`${field}.rule`, str(s.rule), rules));
  causes.push(...validateRanges(arrAt(s, 'ranges'), `${field}.ranges`));
  return causes;
}

function validateSysctls(list: unknown[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let all = false;
  list.forEach((s, i) => {
    const v = str(s);
    if (v === '') causes.push(invalid(`${field}[${i}]`, v, 'empty sysctl not allowed'));
    else if (v.length > 253 || !SYSCTL_RE.test(v)) {
      causes.push(invalid(`${field}[${i}]`, v, `must have at most 253 characters and match regex ${SYSCTL_PATTERN}`));
    } else if (v[0] === '*') all = true;
  });
  if (all && list.length > 1) causes.push(forbidden(`${field}.items`, "if '*' is present, must not specify other sysctls"));
  return causes;
}

/** kube's validatePodSecurityPolicySysctlListsDoNotOverlap */
function sysctlOverlaps(allowed: string[], forbiddenList: string[], spec: string): StatusCause[] {
  const causes: StatusCause[] = [];
  allowed.forEach((a, i) => {
    const aPattern = a.endsWith('*');
    const aPrefix = aPattern ? a.slice(0, -1) : '';
    forbiddenList.forEach((f, j) => {
      const fPattern = f.endsWith('*');
      const fPrefix = fPattern ? f.slice(0, -1) : '';
      const onAllowed = invalid(`${spec}.allowedUnsafeSysctls[${i}]`, a, `sysctl overlaps with ${f}`);
      const onForbidden = invalid(`${spec}.forbiddenSysctls[${j}]`, f, `sysctl overlaps with ${a}`);
      if (aPattern && fPattern) {
        if (aPrefix.startsWith(fPrefix)) causes.push(onAllowed);
        else if (fPrefix.startsWith(aPrefix)) causes.push(onForbidden);
      } else if (aPattern) {
        if (f.startsWith(aPrefix)) causes.push(onForbidden);
      } else if (fPattern) {
        if (a.startsWith(fPrefix)) causes.push(onAllowed);
      } else if (a === f) causes.push(onAllowed);
    });
  });
  return causes;
}

function validateRuntimeClass(rc: unknown, field: string): StatusCause[] {
  if (!isObj(rc)) return [];
  const causes: StatusCause[] = [];
  const names = arrAt(rc, 'allowedRuntimeClassNames').map(str);
  const seen = new Set<string>();
  names.forEach((n, i) => {
    const p = `${field}.allowedRuntimeClassNames[${i}]`;
    if (n !== '*') for (const msg of isDNS1123Subdomain(n)) causes.push(invalid(p, n, msg));
    if (seen.has(n)) causes.push(duplicate(p, n));
    seen.add(n);
  });
  const dflt = rc.defaultRuntimeClassName;
  if (typeof dflt === 'string') {
    for (const msg of isDNS1123Subdomain(dflt)) causes.push(invalid(`${field}.defaultRuntimeClassName`, dflt, msg));
    if (!seen.has(dflt) && !seen.has('*')) {
      causes.push(required(`${field}.allowedRuntimeClassNames`, `default runtime class ${JSON.stringify(dflt)} must be allowed`));
    }
  }
  if (seen.has('*') && names.length > 1) {
    causes.push(invalid(`${field}.allowedRuntimeClassNames`, names, "if '*' is present, must not specify other RuntimeClass names"));
  }
  return causes;
}

/** kube's ValidatePodSecurityPolicySpecificAnnotations: seccomp and AppArmor profile names */
export function validatePSPAnnotations(annotations: Record<string, string>): StatusCause[] {
  const causes: StatusCause[] = [];
  const p = (key: string): string => `metadata.annotations[${key}]`;
  const appArmor = (profile: string): boolean => profile === '' || profile === 'runtime/default' || profile === 'unconfined' || profile.startsWith('localhost/');
  const seccomp = (profile: string): boolean =>
    ['runtime/default', 'docker/default', 'unconfined'].includes(profile) || (profile.startsWith('localhost/') && !profile.split('/').includes('..'));
  const aaDefault = 'apparmor.security.beta.kubernetes.io/defaultProfileName';
  const aaAllowed = 'apparmor.security.beta.kubernetes.io/allowedProfileNames';
  const scDefault = 'seccomp.security.alpha.kubernetes.io/defaultProfileName';
  const scAllowed = 'seccomp.security.alpha.kubernetes.io/allowedProfileNames';
  const aa = annotations[aaDefault];
  if (aa && !appArmor(aa)) causes.push(invalid(p(aaDefault), aa, `invalid AppArmor profile name: ${JSON.stringify(aa)}`));
  const aaList = annotations[aaAllowed];
  if (aaList) {
    for (const prof of aaList.split(',')) if (!appArmor(prof)) causes.push(invalid(p(aaAllowed), aaList, `invalid AppArmor profile name: ${JSON.stringify(prof)}`));
  }
  const sc = annotations[scDefault];
  if (sc && !seccomp(sc)) causes.push(invalid(p(scDefault), sc, 'must be a valid seccomp profile'));
  const scList = annotations[scAllowed];
  if (scList) {
    for (const prof of scList.split(',')) if (prof !== '*' && !seccomp(prof)) causes.push(invalid(p(scAllowed), prof, 'must be a valid seccomp profile'));
  }
  return causes;
}

export function validatePSPSpec(spec: Obj): StatusCause[] {
  const f = 'spec';
  const causes: StatusCause[] = [
    ...validateStrategy(spec.runAsUser, `${f}.runAsUser`, ['MustRunAs', 'MustRunAsNonRoot', 'RunAsAny']),
    ...validateStrategy(spec.runAsGroup, `${f}.runAsGroup`, ['MayRunAs', 'MustRunAs', 'RunAsAny'], true),
    ...validateStrategy(spec.seLinux, `${f}.seLinux`, ['MustRunAs', 'RunAsAny']),
    ...validateStrategy(spec.supplementalGroups, `${f}.supplementalGroups`, ['MayRunAs', 'MustRunAs', 'RunAsAny']),
    ...validateStrategy(spec.fsGroup, `${f}.fsGroup`, ['MayRunAs', 'MustRunAs', 'RunAsAny']),
  ];
  for (const v of arrAt(spec, 'volumes')) if (!VOLUME_TYPES.includes(str(v))) causes.push(notSupported(`${f}.volumes`, v, VOLUME_TYPES));
  const drops = arrAt(spec, 'requiredDropCapabilities').map(str);
  const allowedCaps = arrAt(spec, 'allowedCapabilities').map(str);
  // kube reports these two at the root (its field paths lack the spec prefix)
  if (drops.length > 0 && allowedCaps.includes('*')) {
    causes.push(invalid('requiredDropCapabilities', drops, 'must be empty when all capabilities are allowed by a wildcard'));
  }
  for (const key of ['defaultAddCapabilities', 'allowedCapabilities']) {
    if (!Array.isArray(spec.requiredDropCapabilities)) break;
    for (const cap of arrAt(spec, key).map(str)) {
      if (drops.includes(cap)) causes.push(invalid(key, cap, `capability is listed in ${key} and requiredDropCapabilities`));
    }
  }
  if (spec.defaultAllowPrivilegeEscalation === true && spec.allowPrivilegeEscalation === false) {
    causes.push(invalid(`${f}.defaultAllowPrivilegeEscalation`, true, 'Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true'));
  }
  arrAt(spec, 'allowedProcMountTypes').forEach((t, i) => {
    if (t !== 'Default' && t !== 'Unmasked') causes.push(notSupported(`${f}.allowedProcMountTypes[${i}]`, t, ['Default', 'Unmasked']));
  });
  for (const [i, hp] of arrAt(spec, 'allowedHostPaths').entries()) {
    const prefix = str(isObj(hp) ? hp.pathPrefix : '');
    if (prefix === '') {
      causes.push(required(`${f}.allowedHostPaths[${i}]`, 'is required'));
      break;
    }
    if (prefix.split('/').includes('..')) causes.push(invalid(`${f}.allowedHostPaths[${i}]`, prefix, "must not contain '..'"));
  }
  arrAt(spec, 'allowedFlexVolumes').forEach((fv, i) => {
    if (!str(isObj(fv) ? fv.driver : '')) causes.push(required(`${f}.allowedFlexVolumes.allowedFlexVolumes[${i}].driver`, 'must specify a driver'));
  });
  arrAt(spec, 'allowedCSIDrivers').forEach((d, i) => {
    if (!str(isObj(d) ? d.name : '')) causes.push(required(`${f}.allowedCSIDrivers[${i}].name`, ''));
  });
  const allowedSysctls = arrAt(spec, 'allowedUnsafeSysctls').map(str);
  const forbiddenSysctls = arrAt(spec, 'forbiddenSysctls').map(str);
  causes.push(...validateSysctls(allowedSysctls, `${f}.allowedUnsafeSysctls`));
  causes.push(...validateSysctls(forbiddenSysctls, `${f}.forbiddenSysctls`));
  causes.push(...sysctlOverlaps(allowedSysctls, forbiddenSysctls, f));
  causes.push(...validateRuntimeClass(spec.runtimeClass, `${f}.runtimeClass`));
  return causes;
}
