/**
 * --egress-selector-config-file: kube's EgressSelectorConfiguration (apiserver.k8s.io/v1beta1 or
 * v1alpha1), which says how the server reaches the cluster (nodes, pods, services), the control
 * plane (webhooks, extension servers) and etcd. Ballast connects directly to all three, so only
 * the Direct proxy protocol is accepted; HTTPConnect and GRPC (the konnectivity proxy) stop start-up.
 * Every problem is one line naming the file.
 */
import yaml from 'js-yaml';
import { readFlagFile } from '../util/files';

const VERSIONS = ['apiserver.k8s.io/v1beta1', 'apiserver.k8s.io/v1alpha1'];
/** kube's selection names; `master` is the old name of controlplane */
const NAMES = ['cluster', 'controlplane', 'etcd', 'master'];
const PROTOCOLS = ['Direct', 'HTTPConnect', 'GRPC'];

export type EgressSelection = { name: 'cluster' | 'controlplane' | 'etcd'; proxyProtocol: 'Direct' };

export function loadEgressSelectorConfig(file: string): EgressSelection[] {
  const text = readFlagFile(file, '--egress-selector-config-file');
  const fail = (msg: string): never => {
    throw new Error(`--egress-selector-config-file ${file}: ${msg}`);
  };
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    const mark = (err as { mark?: { line?: number } }).mark;
    fail(`${mark?.line !== undefined ? `line ${mark.line + 1}: ` : ''}${String((err as { reason?: string }).reason ?? (err as Error).message)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return fail('not an EgressSelectorConfiguration object');
  const d = doc as Record<string, unknown>;
  if (d.kind !== 'EgressSelectorConfiguration') fail(`kind "${String(d.kind ?? '')}" is not EgressSelectorConfiguration`);
  if (!VERSIONS.includes(String(d.apiVersion))) fail(`apiVersion "${String(d.apiVersion ?? '')}" is not one of ${VERSIONS.join(', ')}`);
  const selections = d.egressSelections ?? [];
  if (!Array.isArray(selections)) return fail('egressSelections: must be a list');
  const seen = new Set<string>();
  return selections.map((s: unknown, i: number) => {
    const p = `egressSelections[${i}]`;
    if (typeof s !== 'object' || s === null) return fail(`${p}: must be an object`);
    const sel = s as Record<string, unknown>;
    const name = String(sel.name ?? '');
    if (!NAMES.includes(name)) fail(`${p}.name: Unsupported value: "${name}": supported values: "cluster", "controlplane", "etcd"`);
    const canonical = name === 'master' ? 'controlplane' : name;
    if (seen.has(canonical)) fail(`${p}.name: Duplicate value: "${name}"`);
    seen.add(canonical);
    const conn = (sel.connection ?? {}) as Record<string, unknown>;
    const protocol = String(conn.proxyProtocol ?? '');
    if (!PROTOCOLS.includes(protocol)) fail(`${p}.connection.proxyProtocol: Unsupported value: "${protocol}": supported values: "Direct", "GRPC", "HTTPConnect"`);
    if (protocol !== 'Direct') fail(`${p}.connection.proxyProtocol: ${protocol} is not supported by Ballast (only Direct)`);
    if (conn.transport !== undefined && conn.transport !== null) fail(`${p}.connection.transport: Forbidden: transport must be empty for proxyProtocol Direct`);
    return { name: canonical as EgressSelection['name'], proxyProtocol: 'Direct' as const };
  });
}
