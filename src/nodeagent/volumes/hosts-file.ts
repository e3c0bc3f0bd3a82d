/**
 * The /etc/hosts kubelet manages for a pod (kubelet_pods.go ensureHostsFile): for pod-network pods a
 * file of its own (localhost lines, the pod's IPs with its hostname, the hostAliases); for
 * host-network pods the host's /etc/hosts plus the hostAliases.
 */
import * as fs from 'fs';

export const MANAGED_HOSTS_HEADER = '# Kubernetes-managed hosts file.\n';

export interface HostAlias { ip?: string; hostnames?: string[] }

function aliasLines(aliases: HostAlias[]): string {
  if (aliases.length === 0) return '';
  let out = '\n# Entries added by HostAliases.\n';
  for (const a of aliases) out += `${a.ip ?? ''}\t${(a.hostnames ?? []).join('\t')}\n`;
  return out;
}

export function managedHostsContent(podIPs: string[], hostname: string, hostDomain: string, aliases: HostAlias[]): string {
  let out = MANAGED_HOSTS_HEADER;
  out += '127.0.0.1\tlocalhost\n';
  out += '::1\tlocalhost ip6-localhost ip6-loopback\n';
  out += 'fe00::0\tip6-localnet\n';
  out += 'fe00::0\tip6-mcastprefix\n';
  out += 'fe00::1\tip6-allnodes\n';
  out += 'fe00::2\tip6-allrouters\n';
  for (const ip of podIPs) out += hostDomain ? `${ip}\t${hostname}.${hostDomain}\t${hostname}\n` : `${ip}\t${hostname}\n`;
  return out + aliasLines(aliases);
}

/** the host's hosts file with the pod's aliases (kube's nodeHostsFileContent) */
export function nodeHostsContent(hostsFile: string, aliases: HostAlias[]): string {
  let text = '';
  try {
    text = fs.readFileSync(hostsFile, 'utf8');
  } catch {
    text = '';
  }
  return text + aliasLines(aliases);
}
