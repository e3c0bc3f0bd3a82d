/**
 * Request info: what a request is about, from its method, path and query alone (kube's
 * RequestInfoFactory). Computed once, early, so that logging, in-flight limits and routing agree.
 * It never throws: whether the group/version/resource exists is the router's question.
 */

export type ResourceVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRequestInfo {
  isResourceRequest: true;
  /** a ResourceVerb, or the lower-cased method for methods kube has no verb for */
  verb: ResourceVerb | string;
  /** '' for the core group (/api) */
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** segments after the subresource (never served; kept so the router can answer 404) */
  extra: string[];
  /** the request came in through the deprecated /watch/ prefix */
  watchPath: boolean;
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  /** the lower-cased method */
  verb: string;
  path: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

const methodVerbs: Record<string, ResourceVerb> = {
  GET: 'get',
  HEAD: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** namespace subresources that kube keeps on the namespace itself (/api/v1/namespaces/x/status) */
const namespaceSubresources = new Set(['status', 'finalize']);

/** kube reads boolean query flags as true unless the value is `false` or `0` */
export function isTrueFlag(value: string | null): boolean {
  if (value === null) return false;
  const v = value.toLowerCase();
  return v !== 'false' && v !== '0';
}

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const nonResource: NonResourceRequestInfo = { isResourceRequest: false, verb: method.toLowerCase(), path };
  let parts = path.split('/').filter((p) => p !== '');
  let group: string;
  let version: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1];
    parts = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1];
    version = parts[2];
    parts = parts.slice(3);
  } else {
    // /api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>: discovery, and everything else
    return nonResource;
  }

  let verb: string = methodVerbs[method.toUpperCase()] ?? method.toLowerCase();
  let watchPath = false;
  if (parts[0] === 'watch') {
    if (parts.length < 2) return nonResource;
    verb = 'watch';
    watchPath = true;
    parts = parts.slice(1);
  }

  let namespace: string | undefined;
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1];
    if (parts.length > 2 && !namespaceSubresources.has(parts[2])) {
      parts = parts.slice(2);
    } else {
      // /namespaces/<name>[/status]: the namespace object itself
      namespace = undefined;
    }
  }

  const [resource, name, subresource, ...extra] = parts;
  const info: ResourceRequestInfo = { isResourceRequest: true, verb, group, version, resource, extra, watchPath };
  if (namespace !== undefined) info.namespace = namespace;
  if (name !== undefined) info.name = name;
  if (subresource !== undefined) info.subresource = subresource;

  if (!name && verb === 'get') info.verb = 'list';
  if (info.verb === 'list' && query.has('watch') && isTrueFlag(query.get('watch'))) info.verb = 'watch';
  if (!name && verb === 'delete') info.verb = 'deletecollection';
  return info;
}

/** kube's long-running requests: watches (and, once served, proxy/exec/attach/log/portforward) */
export function isLongRunning(info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  if (info.verb === 'watch') return true;
  return info.subresource !== undefined && ['proxy', 'attach', 'exec', 'log', 'portforward'].includes(info.subresource);
}

/** kube counts everything but get, list and watch against --max-mutating-requests-inflight */
export function isMutating(info: RequestInfo): boolean {
  return !['get', 'list', 'watch', 'head', 'options'].includes(info.verb);
}
