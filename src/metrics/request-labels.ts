/**
 * The labels kube-apiserver puts on its request metrics, derived from the request alone
 * (k8s.io/apiserver endpoints/metrics: canonical verb, clean verb, clean scope, clean dry run).
 */
import type { RequestInfo } from '../http/request-info';

export interface RequestLabels {
  verb: string;
  dry_run: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

/** non-resource paths that get their own series (kube instruments its health and metrics handlers) */
const instrumentedPaths = /^\/(healthz|livez|readyz|metrics)(\/[^/]*)?$/;

const APPLY_PATCH = 'application/apply-patch+yaml';

/** the verbs kube reports; any other method is `other`, so odd methods cannot add series */
const reportedVerbs = new Set(['APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'LIST', 'PATCH', 'POST', 'PROXY', 'PUT', 'UPDATE', 'WATCH', 'WATCHLIST']);

/**
 * kube's scope: `resource` for one named object (and every create), `namespace` for a namespaced
 * collection, `cluster` for a cluster-wide one, '' for non-resource requests
 */
export function requestScope(info: RequestInfo): string {
  if (!info.isResourceRequest) return '';
  if (info.name || info.verb === 'create') return 'resource';
  if (info.namespace) return 'namespace';
  return 'cluster';
}

/**
 * kube's reported verb: the upper-case HTTP method (HEAD as GET), except LIST for collection reads,
 * WATCH for watches (either form) and APPLY for server-side apply patches; a deletecollection is a
 * DELETE and an exec a POST, as kube reports them. Unknown methods are `other`.
 */
export function reportedVerb(method: string, info: RequestInfo, contentType = ''): string {
  let m = method.toUpperCase();
  if (m === 'HEAD') m = 'GET';
  if (info.isResourceRequest) {
    if (info.verb === 'watch') return 'WATCH';
    if (info.verb === 'list') return 'LIST';
    if (m === 'PATCH' && contentType.split(';')[0].trim().toLowerCase() === APPLY_PATCH) return 'APPLY';
  }
  return reportedVerbs.has(m) ? m : 'other';
}

/**
 * kube's dry_run label: the distinct dryRun values, sorted and joined with ','; '' without any;
 * `invalid` when one is not `All` (kube validates them the same way)
 */
export function dryRunLabel(query: URLSearchParams): string {
  const values = query.getAll('dryRun');
  if (values.length === 0) return '';
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}

/** every label of the request metrics but the code */
export function requestLabels(method: string, info: RequestInfo, query: URLSearchParams, contentType = ''): RequestLabels {
  if (!info.isResourceRequest) {
    // kube labels its instrumented non-resource handlers by path (in subresource); everything
    // else shares one series so that arbitrary paths cannot grow the label set without bound
    const path = instrumentedPaths.test(info.path) ? info.path : '';
    return { verb: reportedVerb(method, info), dry_run: '', group: '', version: '', resource: '', subresource: path, scope: '', component: '' };
  }
  return {
    verb: reportedVerb(method, info, contentType),
    dry_run: dryRunLabel(query),
    group: info.group,
    version: info.version,
    resource: info.resource ?? '',
    subresource: info.subresource ?? '',
    scope: requestScope(info),
    component: 'apiserver',
  };
}
