/**
 * A container's mounts (kubelet_pods.go makeMounts): each volumeMount becomes a bind of the
 * volume's host path (plus subPath or subPathExpr, made on the host when missing), read-only when
 * the mount or the volume is; then /etc/hosts, which the agent writes to <pod dir>/etc-hosts and
 * mounts when the pod has an IP and the container mounts nothing there itself.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expand } from '../env/expansion';
import type { ContainerMount, Pod } from '../types';
import { managedHostsContent, nodeHostsContent, type HostAlias } from './hosts-file';
import type { MountedVolume } from './volume-manager';

const ETC_HOSTS = '/etc/hosts';

interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
  subPathExpr?: string;
  mountPropagation?: 'None' | 'HostToContainer' | 'Bidirectional';
}

export interface MakeMountsInput {
  pod: Pod;
  podDir: string;
  container: Record<string, unknown>;
  hostname: string;
  hostDomain: string;
  podIPs: string[];
  volumes: Map<string, MountedVolume>;
  /** the container's resolved environment, for subPathExpr */
  envs: { name: string; value: string }[];
  /** the host's hosts file, copied for host-network pods (default /etc/hosts) */
  hostHostsFile?: string;
}

/** kube's ExpandContainerVolumeMounts: every reference must name a non-empty variable */
export function expandSubPath(expr: string, envs: { name: string; value: string }[]): string {
  const vars = new Map(envs.map((e) => [e.name, e.value]));
  const missing = new Set<string>();
  const out = expand(expr, (name) => {
    const v = vars.get(name);
    if (!v) missing.add(name);
    return v ?? '';
  });
  if (missing.size > 0) throw new Error(`missing value for ${[...missing].sort().join(', ')}`);
  return out;
}

export function makeMounts(input: MakeMountsInput): ContainerMount[] {
  const { pod, container } = input;
  const containerName = container.name as string;
  let mountHosts = input.podIPs.length > 0;
  const mounts: ContainerMount[] = [];
  for (const m of (container.volumeMounts ?? []) as VolumeMount[]) {
    if (m.mountPath === ETC_HOSTS) mountHosts = false;
    const vol = input.volumes.get(m.name);
    if (!vol) throw new Error(`cannot find volume "${m.name}" to mount into container "${containerName}"`);
    let hostPath = vol.hostPath;
    let subPath = m.subPath ?? '';
    if (m.subPathExpr) subPath = expandSubPath(m.subPathExpr, input.envs);
    if (subPath) {
      if (path.isAbsolute(subPath)) throw new Error(`error SubPath \`${subPath}\` must not be an absolute path`);
      if (subPath.split('/').includes('..')) throw new Error(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
      hostPath = path.join(vol.hostPath, subPath);
      if (!fs.existsSync(hostPath)) {
        try {
          // the volume's own mode, so the group-writable emptyDir stays so below
          const mode = fs.statSync(vol.hostPath).mode & 0o7777;
          fs.mkdirSync(hostPath, { recursive: true });
          fs.chmodSync(hostPath, mode);
        } catch {
          throw new Error(`failed to create subPath directory for volumeMount "${m.name}" of container "${containerName}"`);
        }
      }
    }
    const mount: ContainerMount = { containerPath: m.mountPath, hostPath, readOnly: m.readOnly === true || vol.readOnly };
    mount.propagation = m.mountPropagation ?? 'None';
    mounts.push(mount);
  }
  if (mountHosts) {
    const file = path.join(input.podDir, 'etc-hosts');
    const aliases = (pod.spec?.hostAliases ?? []) as HostAlias[];
    const content = pod.spec?.hostNetwork === true
      ? nodeHostsContent(input.hostHostsFile ?? ETC_HOSTS, aliases)
      : managedHostsContent(input.podIPs, input.hostname, input.hostDomain, aliases);
    fs.mkdirSync(input.podDir, { recursive: true });
    fs.writeFileSync(file, content, { mode: 0o644 });
    mounts.push({ containerPath: ETC_HOSTS, hostPath: file, readOnly: false });
  }
  return mounts;
}

/**
 * kube's GeneratePodHostNameAndDomain: spec.hostname or the pod's name (cut to 63 characters), the
 * domain <subdomain>.<namespace>.svc.<cluster domain> when spec.subdomain is set; with
 * setHostnameAsFQDN the hostname is the full name.
 */
export function podHostnameAndDomain(pod: Pod, clusterDomain: string): { hostname: string; hostDomain: string } {
  const spec = pod.spec ?? {};
  const name = pod.metadata?.name ?? '';
  let hostname = (spec.hostname as string | undefined) || name;
  if (hostname.length > 63) hostname = hostname.slice(0, 63).replace(/[-.]+$/, '');
  const subdomain = (spec.subdomain as string | undefined) ?? '';
  const hostDomain = subdomain ? `${subdomain}.${pod.metadata?.namespace ?? ''}.svc.${clusterDomain}` : '';
  if (spec.setHostnameAsFQDN === true && hostDomain) {
    const fqdn = `${hostname}.${hostDomain}`;
    if (fqdn.length > 64) throw new Error(`Failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is too long (64 characters is the max, ${fqdn.length} characters requested)`);
    hostname = fqdn;
  }
  return { hostname, hostDomain };
}
