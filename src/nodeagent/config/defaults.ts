/**
 * Defaults: Ballast's own paths, and kube 1.20's two sets of KubeletConfiguration defaults. A
 * --config file gets SetDefaults_KubeletConfiguration's; without --config the flags' defaults apply,
 * which are the same plus kubelet's "legacy" ones kept for its command line: anonymous requests
 * allowed, no token webhook, AlwaysAllow authorization and the read-only port 10255.
 */
import { KUBELET_CONFIGURATION_FIELDS, isZero, type FieldValue } from './schema';

/** where kubelet uses /var/lib/kubelet */
export const DEFAULT_ROOT_DIR = '/var/lib/ballast/nodeagent';
export const DEFAULT_CERT_DIR = `${DEFAULT_ROOT_DIR}/pki`;
/** containerd's socket: Ballast has no dockershim, kubelet 1.20's default endpoint */
export const DEFAULT_RUNTIME_ENDPOINT = 'unix:///run/containerd/containerd.sock';
export const DEFAULT_POD_LOGS_DIR = '/var/log/pods';
export const DEFAULT_POD_INFRA_IMAGE = 'k8s.gcr.io/pause:3.2';

/** kubelet's applyLegacyDefaults: the flag defaults that differ from a file's */
export const LEGACY_FLAG_DEFAULTS: ReadonlyMap<string, FieldValue> = new Map<string, FieldValue>([
  ['authentication.anonymous.enabled', true],
  ['authentication.webhook.enabled', false],
  ['authorization.mode', 'AlwaysAllow'],
  ['readOnlyPort', 10255],
]);

/**
 * The configuration `given` (flat dotted paths) with kube's v1beta1 defaults filled in; with
 * `legacy`, the flag defaults as well (what kubelet starts from when there is no --config).
 */
export function withDefaults(given: ReadonlyMap<string, FieldValue>, options: { legacy?: boolean } = {}): Map<string, FieldValue> {
  const out = new Map<string, FieldValue>();
  for (const [path, spec] of KUBELET_CONFIGURATION_FIELDS) {
    const value = given.get(path);
    const absent = value === undefined || (!spec.pointer && isZero(value));
    if (!absent) out.set(path, value);
    else if (spec.default !== undefined) out.set(path, clone(spec.default));
    else if (value !== undefined) out.set(path, value);
  }
  // kube keeps nodeStatusReportFrequency backward compatible: it follows an explicit update frequency
  if (!out.has('nodeStatusReportFrequency') || out.get('nodeStatusReportFrequency') === 0) {
    const update = given.get('nodeStatusUpdateFrequency');
    out.set('nodeStatusReportFrequency', typeof update === 'number' && update !== 0 ? update : 5 * 60_000);
  }
  if (options.legacy) for (const [path, value] of LEGACY_FLAG_DEFAULTS) out.set(path, value);
  return out;
}

function clone(v: FieldValue): FieldValue {
  if (Array.isArray(v)) return [...v];
  if (typeof v === 'object') return { ...v } as FieldValue;
  return v;
}
