/**
 * kube's ValidatePodSpec for the common cases, shared by Pod and pod templates: containers, ports,
 * env, volumes and mounts, policies. Field paths are relative to `field` (`spec` for a Pod,
 * `spec.template.spec` for a Deployment).
 */
import type { StatusCause } from '../errors';
import { duplicate, forbidden, invalid, notFound, notSupported, required } from '../validation/field-errors';
import { isDNS1123Label, isDNS1123Subdomain, isEnvVarName, isValidPortName, isValidPortNum } from '../validation/names';
import { validateLabels } from '../validation/object-meta';
import { arrAt, isObj, str } from './util';
import type { Obj } from './util';

export interface PodSpecValidationOptions {
  /** the restart policies the owner accepts (kube: Always for apps templates, OnFailure/Never for jobs) */
  restartPolicies: readonly string[];
}

export const POD_RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const;
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];

function validatePorts(ports: unknown[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const pp = `${field}[${i}]`;
    const port = isObj(p) ? p : {};
    if (port.name !== undefined && port.name !== '') {
      const name = str(port.name);
      for (const msg of isValidPortName(name)) causes.push(invalid(`${pp}.name`, port.name, msg));
      if (names.has(name)) causes.push(duplicate(`${pp}.name`, name));
      names.add(name);
    }
    if (port.containerPort === undefined || port.containerPort === 0) causes.push(required(`${pp}.containerPort`, ''));
    else for (const msg of isValidPortNum(port.containerPort as number)) causes.push(invalid(`${pp}.containerPort`, port.containerPort, msg));
    if (port.hostPort !== undefined && port.hostPort !== 0) {
      for (const msg of isValidPortNum(port.hostPort as number)) causes.push(invalid(`${pp}.hostPort`, port.hostPort, msg));
    }
    if (!port.protocol) causes.push(required(`${pp}.protocol`, ''));
    else if (!PROTOCOLS.includes(str(port.protocol))) causes.push(notSupported(`${pp}.protocol`, port.protocol, PROTOCOLS));
  });
  return causes;
}

function validateEnv(env: unknown[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  env.forEach((e, i) => {
    const p = `${field}[${i}]`;
    const ev = isObj(e) ? e : {};
    const name = str(ev.name);
    if (!name) causes.push(required(`${p}.name`, ''));
    else for (const msg of isEnvVarName(name)) causes.push(invalid(`${p}.name`, name, msg));
    if (ev.valueFrom !== undefined && ev.value !== undefined && ev.value !== '') {
      causes.push(invalid(`${p}.valueFrom`, '', 'may not be specified when `value` is not empty'));
    }
  });
  return causes;
}

/** one container's own rules (image, policies, ports, env, mounts of known volumes); exported for ephemeral containers */
export function validateContainer(c: Obj, p: string, volumes: Set<string>): StatusCause[] {
  const causes: StatusCause[] = [];
  const image = c.image;
  if (typeof image !== 'string' || image.length === 0) causes.push(required(`${p}.image`, ''));
  else if (image.trim() !== image) causes.push(invalid(`${p}.image`, image, 'must not have leading or trailing whitespace'));
  const pull = c.imagePullPolicy;
  if (pull === undefined || pull === '') causes.push(required(`${p}.imagePullPolicy`, ''));
  else if (!PULL_POLICIES.includes(str(pull))) causes.push(notSupported(`${p}.imagePullPolicy`, pull, PULL_POLICIES));
  const tmp = c.terminationMessagePolicy;
  if (tmp === undefined || tmp === '') causes.push(required(`${p}.terminationMessagePolicy`, "must be 'File' or 'FallbackToLogsOnError'"));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(str(tmp))) {
    causes.push(invalid(`${p}.terminationMessagePolicy`, tmp, "must be 'File' or 'FallbackToLogsOnError'"));
  }
  causes.push(...validatePorts(arrAt(c, 'ports'), `${p}.ports`));
  causes.push(...validateEnv(arrAt(c, 'env'), `${p}.env`));
  const mountPaths = new Set<string>();
  arrAt(c, 'volumeMounts').forEach((m, i) => {
    const mp = `${p}.volumeMounts[${i}]`;
    const mount = isObj(m) ? m : {};
    const name = str(mount.name);
    if (!name) causes.push(required(`${mp}.name`, ''));
    else if (!volumes.has(name)) causes.push(notFound(`${mp}.name`, name));
    const mountPath = str(mount.mountPath);
    if (!mountPath) causes.push(required(`${mp}.mountPath`, ''));
    else if (mountPaths.has(mountPath)) causes.push(invalid(`${mp}.mountPath`, mountPath, 'must be unique'));
    mountPaths.add(mountPath);
  });
  if (c.tty === true && c.stdin !== true) causes.push(forbidden(`${p}.tty`, '-t, --tty may not be specified without -i, --stdin'));
  return causes;
}

/** container lists: names are unique DNS labels across containers and init containers */
function validateContainers(spec: Obj, field: string, volumes: Set<string>): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  const containers = spec.containers;
  if (!Array.isArray(containers) || containers.length === 0) causes.push(required(`${field}.containers`, ''));
  for (const key of ['initContainers', 'containers']) {
    arrAt(spec, key).forEach((ctr, i) => {
      const p = `${field}.${key}[${i}]`;
      const c = isObj(ctr) ? ctr : {};
      const name = str(c.name);
      if (!name) causes.push(required(`${p}.name`, ''));
      else {
        for (const msg of isDNS1123Label(name)) causes.push(invalid(`${p}.name`, name, msg));
        if (names.has(name)) causes.push(duplicate(`${p}.name`, name));
      }
      names.add(name);
      causes.push(...validateContainer(c, p, volumes));
    });
  }
  return causes;
}

function validateVolumes(spec: Obj, field: string): { causes: StatusCause[]; names: Set<string> } {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  arrAt(spec, 'volumes').forEach((v, i) => {
    const p = `${field}.volumes[${i}]`;
    const vol = isObj(v) ? v : {};
    const name = str(vol.name);
    if (!name) causes.push(required(`${p}.name`, ''));
    else {
      for (const msg of isDNS1123Label(name)) causes.push(invalid(`${p}.name`, name, msg));
      if (names.has(name)) causes.push(duplicate(`${p}.name`, name));
    }
    names.add(name);
  });
  return { causes, names };
}

export function validatePodSpec(spec: unknown, field: string, opts: PodSpecValidationOptions): StatusCause[] {
  if (!isObj(spec)) return [required(field, '')];
  const { causes, names } = validateVolumes(spec, field);
  causes.push(...validateContainers(spec, field, names));
  const restart = spec.restartPolicy;
  if (restart === undefined || restart === '') causes.push(required(`${field}.restartPolicy`, ''));
  else if (!opts.restartPolicies.includes(str(restart))) causes.push(notSupported(`${field}.restartPolicy`, restart, opts.restartPolicies));
  const dns = spec.dnsPolicy;
  if (dns === undefined || dns === '') causes.push(required(`${field}.dnsPolicy`, ''));
  else if (!DNS_POLICIES.includes(str(dns))) causes.push(notSupported(`${field}.dnsPolicy`, dns, DNS_POLICIES));
  if (dns === 'None' && !isObj(spec.dnsConfig)) causes.push(required(`${field}.dnsConfig`, "must provide `dnsConfig` when `dnsPolicy` is None"));
  causes.push(...validateLabels(spec.nodeSelector, `${field}.nodeSelector`));
  for (const key of ['serviceAccountName', 'nodeName']) {
    const v = spec[key];
    if (typeof v === 'string' && v !== '') for (const msg of isDNS1123Subdomain(v)) causes.push(invalid(`${field}.${key}`, v, msg));
  }
  for (const key of ['hostname', 'subdomain']) {
    const v = spec[key];
    if (typeof v === 'string' && v !== '') for (const msg of isDNS1123Label(v)) causes.push(invalid(`${field}.${key}`, v, msg));
  }
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null && (typeof ads !== 'number' || ads < 1 || ads > 2147483647)) {
    causes.push(invalid(`${field}.activeDeadlineSeconds`, ads, 'must be between 1 and 2147483647, inclusive'));
  }
  const tgps = spec.terminationGracePeriodSeconds;
  if (tgps !== undefined && tgps !== null && typeof tgps !== 'number') causes.push(invalid(`${field}.terminationGracePeriodSeconds`, tgps, 'must be an integer'));
  return causes;
}
