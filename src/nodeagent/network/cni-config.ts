/**
 * The pod network of a node whose runtime has no CNI configuration of its own: the agent writes a
 * bridge + host-local configuration for the node's pod CIDR into --cni-conf-dir (the runtime's CNI
 * plugin picks it up from there), as kube's kubenet did for the docker runtime. A configuration
 * somebody else put there (a CNI add-on) wins: the agent then writes nothing.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** the file the agent owns in --cni-conf-dir; sorts first, as runtimes take the first by name */
export const CNI_CONFIG_FILE = '10-ballast.conflist';
/**
 * The bridge's name on the host, and the network's (host-local keeps its address store under
 * /var/lib/cni/networks/<network>): both follow the pod CIDR, so agents of different nodes sharing
 * one host (tests, several `ballast all` data dirs) never put two ranges on one bridge or store.
 * Linux bridge names have at most 15 characters.
 */
export function cniNames(podCIDR: string): { bridge: string; network: string } {
  const tag = crypto.createHash('sha256').update(podCIDR).digest('hex').slice(0, 6);
  return { bridge: `ballast${tag}`, network: `ballast-${tag}` };
}
/** containerd's own default pod range, for a node that has no pod CIDR */
export const DEFAULT_POD_CIDR = '10.88.0.0/16';

export function cniConfigList(podCIDR: string, mtu = 0): Record<string, unknown> {
  const names = cniNames(podCIDR);
  const bridge: Record<string, unknown> = {
    type: 'bridge',
    bridge: names.bridge,
    isGateway: true,
    ipMasq: true,
    hairpinMode: true,
    ipam: { type: 'host-local', ranges: [[{ subnet: podCIDR }]], routes: [{ dst: podCIDR.includes(':') ? '::/0' : '0.0.0.0/0' }] },
  };
  if (mtu > 0) bridge.mtu = mtu;
  return { cniVersion: '0.4.0', name: names.network, plugins: [bridge, { type: 'portmap', capabilities: { portMappings: true } }] };
}

/**
 * Writes (or rewrites) the agent's configuration for `podCIDR`; returns what it did. Leaves the
 * directory alone when another configuration is there.
 */
export function ensureCniConfig(confDir: string, podCIDR: string, mtu = 0): 'written' | 'unchanged' | 'foreign' {
  fs.mkdirSync(confDir, { recursive: true });
  const others = fs.readdirSync(confDir).filter((f) => f !== CNI_CONFIG_FILE && /\.(conf|conflist|json)$/.test(f));
  if (others.length > 0) return 'foreign';
  const file = path.join(confDir, CNI_CONFIG_FILE);
  const text = JSON.stringify(cniConfigList(podCIDR, mtu), null, 2) + '\n';
  let current: string | undefined;
  try {
    current = fs.readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) return 'unchanged';
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
  return 'written';
}
