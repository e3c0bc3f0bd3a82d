/**
 * The sandbox's resolv.conf (kubelet's network/dns Configurer.GetPodDNS): dnsPolicy picks the base
 * (the cluster DNS, the host's resolv.conf, or nothing for None), dnsConfig is merged on top, and
 * the result is trimmed to the resolver's limits.
 */
import * as fs from 'fs';
import type { Pod } from '../types';
import type { Recorder } from './sources';

export interface DNSConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

export interface DNSOptions {
  /** --cluster-dns */
  clusterDNS: string[];
  /** --cluster-domain */
  clusterDomain: string;
  /** --resolv-conf: the host's resolver file; empty means none (lookups go to localhost) */
  resolvConf: string;
  nodeName: string;
  nodeIPs: string[];
  recorder: Recorder;
}

const MAX_NAMESERVERS = 3;
const MAX_SEARCHES = 6;
const MAX_SEARCH_CHARS = 256;
const DEFAULT_OPTIONS = ['ndots:5'];

const unique = (xs: string[]): string[] => [...new Set(xs)];

/** nameserver, search and options lines of a resolv.conf (the last search line wins) */
export function parseResolvConf(text: string): DNSConfig {
  const out: DNSConfig = { servers: [], searches: [], options: [] };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const fields = line.split(/\s+/).filter(Boolean);
    if (fields.length === 0) continue;
    if (fields[0] === 'nameserver' && fields.length > 1) out.servers.push(fields[1]);
    else if (fields[0] === 'search') out.searches = fields.slice(1);
    else if (fields[0] === 'options') out.options.push(...fields.slice(1));
  }
  return out;
}

function mergeOptions(existing: string[], extra: { name?: string; value?: string }[]): string[] {
  const m = new Map<string, string>();
  for (const op of existing) {
    const i = op.indexOf(':');
    if (i >= 0) m.set(op.slice(0, i), op.slice(i + 1));
    else m.set(op, '');
  }
  for (const op of extra) m.set(op.name ?? '', op.value ?? '');
  return [...m].map(([k, v]) => (v ? `${k}:${v}` : k));
}

export class PodDNSConfigurer {
  readonly #opts: DNSOptions;

  constructor(opts: DNSOptions) {
    this.#opts = opts;
  }

  #hostConfig(): DNSConfig {
    if (!this.#opts.resolvConf) return { servers: [], searches: [], options: [] };
    let text = '';
    try {
      text = fs.readFileSync(this.#opts.resolvConf, 'utf8');
    } catch {
      // kube fails the sandbox when it cannot read the file; an empty base is the kinder answer here
    }
    return parseResolvConf(text);
  }

  getPodDNS(pod: Pod): DNSConfig {
    const spec = pod.spec ?? {};
    const hostNetwork = spec.hostNetwork === true;
    const policy = (spec.dnsPolicy as string | undefined) ?? 'ClusterFirst';
    let type: 'none' | 'cluster' | 'host' = 'cluster';
    if (policy === 'None') type = 'none';
    else if (policy === 'Default' || (policy === 'ClusterFirst' && hostNetwork)) type = 'host';

    let config = this.#hostConfig();
    const { clusterDNS, clusterDomain, recorder } = this.#opts;
    if (type === 'none') {
      config = { servers: [], searches: [], options: [] };
    } else if (type === 'cluster' && clusterDNS.length > 0) {
      const ns = pod.metadata?.namespace ?? '';
      config.servers = [...clusterDNS];
      if (clusterDomain) config.searches = unique([`${ns}.svc.${clusterDomain}`, `svc.${clusterDomain}`, clusterDomain, ...config.searches]);
      config.options = [...DEFAULT_OPTIONS];
    } else {
      if (type === 'cluster') {
        const msg = `kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.`;
        recorder.event({ kind: 'Node', apiVersion: 'v1', metadata: { name: this.#opts.nodeName, uid: this.#opts.nodeName } }, 'Warning', 'MissingClusterDNS', msg);
        recorder.event(pod, 'Warning', 'MissingClusterDNS', `pod: "${pod.metadata?.name}_${pod.metadata?.namespace}(${pod.metadata?.uid})". ${msg}`);
      }
      if (!this.#opts.resolvConf) {
        config.servers = this.#opts.nodeIPs.map((ip) => (ip.includes(':') ? '::1' : '127.0.0.1'));
        if (config.servers.length === 0) config.servers = ['127.0.0.1'];
        config.searches = ['.'];
      }
    }
    const extra = spec.dnsConfig as { nameservers?: string[]; searches?: string[]; options?: { name?: string; value?: string }[] } | undefined;
    if (extra) {
      config.servers = unique([...config.servers, ...(extra.nameservers ?? [])]);
      config.searches = unique([...config.searches, ...(extra.searches ?? [])]);
      config.options = mergeOptions(config.options, extra.options ?? []);
    }
    return this.#fitLimits(config, pod);
  }

  /** kube's formDNSConfigFitsLimits: at most 3 nameservers, 6 search domains of 256 characters in all */
  #fitLimits(config: DNSConfig, pod: Pod): DNSConfig {
    const { recorder } = this.#opts;
    if (config.servers.length > MAX_NAMESERVERS) {
      config.servers = config.servers.slice(0, MAX_NAMESERVERS);
      recorder.event(pod, 'Warning', 'DNSConfigForming', `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${config.servers.join(' ')}`);
    }
    let searches = config.searches.slice(0, MAX_SEARCHES);
    while (searches.join(' ').length > MAX_SEARCH_CHARS) searches = searches.slice(0, -1);
    if (searches.length < config.searches.length) {
      recorder.event(pod, 'Warning', 'DNSConfigForming', `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${searches.join(' ')}`);
      config.searches = searches;
    }
    return config;
  }
}
