/**
 * Connect subresources (pods/log, exec, attach, portforward, proxy; nodes/proxy; services/proxy),
 * served as kube 1.20 serves them: located (a pod's node agent through `ConnectBackends.nodeAgent`,
 * a pod IP, one ready endpoint of a service) and proxied (src/http/proxy/backend.ts). Errors
 * found before a backend is reached are kube's: the object missing (404), a container the pod does
 * not have or a pod not bound to a node (400), the log of an unbound pod (empty), invalid log
 * options (422). Without backends configured the streams answer 503 saying what is missing.
 *
 * WebSocket, as kube 1.30+ serves it: exec and attach offering v5.channel.k8s.io (kubectl 1.30+)
 * go through the stream translator (proxy/stream-translator.ts: WebSocket to the client, SPDY to
 * the agent); port-forward offering SPDY/3.1+portforward.k8s.io goes through the tunnel
 * (proxy/portforward-tunnel.ts: the SPDY session inside WebSocket messages). Any other upgrade
 * (SPDY/3.1, the v1-v4 channel protocols of older WebSocket clients) is relayed to the agent as it
 * came, and the agent's runtime answers it. The checks above run before either, so their errors
 * reach a WebSocket client as a Status in a plain response, before any upgrade.
 */
import { isIP } from 'node:net';
import { ApiError, errors, isApiError, type StatusReason } from '../../api/errors';
import type { KindDefinition, KubeObject } from '../../api/kind';
import type { NodeAgentClient } from '../../server/node-agent-client';
import { type BackendAnswer, joinUpgrade, openBackend, readText, responseHeaders } from '../proxy/backend';
import { spdyUpgradeHeaders, tunnel, tunneledSpdyProtocols } from '../proxy/portforward-tunnel';
import { translateRemoteCommand, wantsStreamTranslation } from '../proxy/stream-translator';
import { checkWebSocketRequest, isWebSocketRequest, offeredProtocols } from '../proxy/websocket';
import type { ResourceDeps, ResourceRequest } from './types';
import { admitConnect } from './connect-admission';
import { logQuery } from './connect-log-options';

/** what the connect handlers reach backends with (the API server makes it from the --kubelet-* flags) */
export interface ConnectBackends {
  nodeAgent: NodeAgentClient;
  nodes: KindDefinition;
  endpoints: KindDefinition;
}

export async function connectResource(r: ResourceRequest, deps: ResourceDeps): Promise<void> {
  const what = `${r.kind.resource}/${r.subresource}`;
  // kube's ConnectAdmission runs before the object is looked up; pods/log is a read, not a connect
  if (!(r.kind.group === '' && r.kind.resource === 'pods' && r.subresource === 'log')) await admitConnect(r, deps.admission);
  if (r.kind.group === '' && r.kind.resource === 'pods') return connectPod(r, deps, what);
  const id = splitSchemeNamePort(r.target.name ?? '');
  if (!id) throw errors.badRequest(`invalid ${r.kind.singular} request ${JSON.stringify(r.target.name ?? '')}`);
  const obj = await deps.registry.get({ ...r.target, name: id.name }, {});
  const b = deps.connect;
  if (r.kind.resource === 'services') {
    if (!b) throw errors.unavailable(`no endpoints available for service ${JSON.stringify(id.name)}`);
    const target = await serviceTarget(r, deps.registry, b, obj, id);
    return proxyTo(r, new URL(`${target}${proxyPath(r)}`), undefined);
  }
  if (r.kind.resource === 'nodes') {
    if (!b) throw noAgent(what, id.name);
    const { host, port } = b.nodeAgent.location(obj);
    const scheme = id.scheme || 'https';
    const u = new URL(`${scheme}://${bracket(host)}:${id.port || port}${proxyPath(r)}`);
    return proxyTo(r, u, b.nodeAgent);
  }
  throw errors.unavailable(`${what} is not available: nothing serves it yet`);
}

async function connectPod(r: ResourceRequest, deps: ResourceDeps, what: string): Promise<void> {
  const sub = r.subresource;
  const query = r.ctx.state.query;
  if (sub === 'proxy') {
    // kube's pod ResourceLocation: the name may be "pod", "pod:port" or "scheme:pod:port"
    const id = splitSchemeNamePort(r.target.name ?? '');
    if (!id) throw errors.badRequest(`invalid pod request ${JSON.stringify(r.target.name ?? '')}`);
    const pod = await deps.registry.get({ ...r.target, name: id.name }, {});
    const podIP = (pod.status as { podIP?: string } | undefined)?.podIP ?? '';
    // kube refuses to proxy to an address that is not a usable IP (a pod without one yet)
    if (isIP(podIP) === 0) throw errors.badRequest('address not allowed');
    const host = id.port ? `${bracket(podIP)}:${id.port}` : bracket(podIP);
    return proxyTo(r, new URL(`${id.scheme || 'http'}://${host}${proxyPath(r)}`), undefined);
  }
  const logParams = sub === 'log' ? logQuery(query, r.target.name ?? '') : undefined;
  const pod = await deps.registry.get(r.target, {});
  const name = pod.metadata?.name ?? r.target.name ?? '';
  const namespace = pod.metadata?.namespace ?? r.target.namespace ?? '';
  const container = sub === 'log' || sub === 'exec' || sub === 'attach' ? checkContainer(pod, name, query.get('container') ?? '') : '';
  const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
  if (nodeName === '') {
    // kube's LogLocation: no node, no log yet (an empty answer); the streams need a node
    if (sub === 'log') {
      r.ctx.status = 200;
      r.ctx.type = 'text/plain';
      r.ctx.body = '';
      return;
    }
    throw errors.badRequest(`pod ${name} does not have a host assigned`);
  }
  const b = deps.connect;
  if (!b) throw noAgent(what, nodeName);
  const node = await deps.registry.get({ kind: b.nodes, name: nodeName }, {});
  const seg = (s: string) => encodeURIComponent(s);
  if (sub === 'log') {
    const u = b.nodeAgent.url(node, `/containerLogs/${seg(namespace)}/${seg(name)}/${seg(container)}`, logParams!.params);
    return streamLog(r, u, b.nodeAgent, logParams!.insecure);
  }
  const params = streamParams(sub ?? '', query);
  const path = sub === 'portforward' ? `/portForward/${seg(namespace)}/${seg(name)}` : `/${sub}/${seg(namespace)}/${seg(name)}/${seg(container)}`;
  const target = b.nodeAgent.url(node, path, params);
  if (isWebSocketRequest(r.ctx.req)) {
    const offered = offeredProtocols(r.ctx.req);
    if ((sub === 'exec' || sub === 'attach') && wantsStreamTranslation(offered)) return translate(r, target, b.nodeAgent);
    const tunneled = tunneledSpdyProtocols(offered);
    if (sub === 'portforward' && tunneled.length > 0) return tunnelPortForward(r, target, b.nodeAgent, tunneled);
  }
  return proxyTo(r, target, b.nodeAgent);
}

/** exec/attach for a v5 WebSocket client: the session runs on after this returns (as a relayed upgrade does) */
function translate(r: ResourceRequest, target: URL, agent: NodeAgentClient): void {
  const req = r.ctx.req;
  checkWebSocketRequest(req);
  const on = (k: string) => ['true', '1'].includes((r.ctx.state.query.get(k) ?? '').toLowerCase());
  r.ctx.respond = false;
  const socket = req.socket;
  translateRemoteCommand({
    req,
    socket,
    target,
    tls: agent.tls(),
    timeoutMs: agent.timeoutMs,
    options: { stdin: on('stdin'), stdout: on('stdout'), stderr: on('stderr'), tty: on('tty') },
  }).catch(() => socket.destroy());
}

/** port-forward for a client tunnelling SPDY in WebSocket: the agent is asked for SPDY; its refusal comes back as it was */
async function tunnelPortForward(r: ResourceRequest, target: URL, agent: NodeAgentClient, protocols: string[]): Promise<void> {
  const ctx = r.ctx;
  const req = ctx.req;
  checkWebSocketRequest(req);
  const answer = await reach(() => openBackend({ target, method: 'POST', headers: spdyUpgradeHeaders(req.headers, protocols), upgrade: true, tls: agent.tls(), timeoutMs: agent.timeoutMs }));
  if (answer.kind === 'upgrade') {
    if (!/\bupgrade\b/i.test(String(answer.res.headers.connection ?? '')) || !String(answer.res.headers.upgrade ?? '').toLowerCase().includes('spdy/3.1')) {
      answer.socket.destroy();
      throw errors.internal('unable to upgrade: missing upgrade headers in response');
    }
    ctx.respond = false;
    const socket = req.socket;
    tunnel(req, socket, answer).catch(() => socket.destroy());
    return;
  }
  const res = answer.res;
  ctx.status = res.statusCode ?? 502;
  for (const [k, v] of Object.entries(responseHeaders(res))) ctx.set(k, v);
  ctx.body = res;
  req.once('close', () => res.destroy());
}

/** kube's streamParams: the agent's query of exec, attach and port-forward, checked first */
function streamParams(sub: string, q: URLSearchParams): URLSearchParams {
  const on = (k: string) => ['true', '1'].includes((q.get(k) ?? '').toLowerCase());
  const p = new URLSearchParams();
  if (sub === 'portforward') {
    const ports = q.getAll('ports').flatMap((v) => v.split(',')).filter((v) => v !== '');
    for (const port of ports) {
      const n = Number(port);
      if (!Number.isInteger(n) || n < 1 || n > 65535) throw errors.badRequest(`invalid port ${JSON.stringify(port)}: must be between 1 and 65535, inclusive`);
    }
    if (ports.length > 0) p.set('port', ports.join(','));
    return p;
  }
  if (sub === 'exec' && q.getAll('command').length === 0) throw errors.badRequest('you must specify at least 1 command');
  if (!on('stdin') && !on('stdout') && !on('stderr')) throw errors.badRequest('you must specify at least one of stdin, stdout, stderr');
  for (const k of ['stdin', 'stdout', 'stderr', 'tty']) if (on(k)) p.append(k === 'stdin' ? 'input' : k === 'stdout' ? 'output' : k === 'stderr' ? 'error' : 'tty', '1');
  if (sub === 'exec') for (const c of q.getAll('command')) p.append('command', c);
  return p;
}

/** pods/log: the agent's log stream as it arrives; its errors as kube's GenericHttpResponseChecker makes them */
async function streamLog(r: ResourceRequest, u: URL, agent: NodeAgentClient, insecure: boolean): Promise<void> {
  const answer = await reach(() => openBackend({ target: u, method: 'GET', headers: {}, upgrade: false, tls: agent.tls(insecure), timeoutMs: agent.timeoutMs }));
  if (answer.kind !== 'response') throw errors.internal('the node agent switched protocols on a log request');
  const res = answer.res;
  const code = res.statusCode ?? 500;
  if (code < 200 || code > 206) {
    const text = await readText(res);
    if (code === 500) throw errors.internal(text);
    if (code === 400) throw errors.badRequest(text);
    throw genericServerResponse(code, r, text);
  }
  r.ctx.status = 200;
  r.ctx.type = 'text/plain';
  // kube streams logs as they come (flushing each write); gzip would hold them back
  r.ctx.state.uncompressed = true;
  r.ctx.body = res;
  r.ctx.req.once('close', () => res.destroy());
}

/**
 * kube's UpgradeAwareHandler: an upgrade request is relayed and, on 101, the sockets joined; any
 * other request is proxied with its method and body and the answer streamed back.
 */
async function proxyTo(r: ResourceRequest, u: URL, agent: NodeAgentClient | undefined): Promise<void> {
  const ctx = r.ctx;
  const req = ctx.req;
  const upgrade = Boolean(req.headers.upgrade) && /\bupgrade\b/i.test(String(req.headers.connection ?? ''));
  const rest = proxyRest(r);
  // kube redirects the bare proxy path to the one with a trailing slash (relative links resolve under it)
  if (r.subresource === 'proxy' && rest === '' && !upgrade && ['GET', 'HEAD'].includes(ctx.method)) {
    ctx.status = 301;
    ctx.redirect(`${ctx.path}/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
    ctx.status = 301;
    return;
  }
  if (r.subresource === 'proxy') u.search = stripped(ctx.state.query);
  const answer: BackendAnswer = await reach(() =>
    openBackend({ target: u, method: ctx.method, headers: req.headers, upgrade, tls: agent?.tls() ?? { rejectUnauthorized: false }, body: upgrade ? undefined : req }),
  );
  if (answer.kind === 'upgrade') {
    ctx.respond = false;
    joinUpgrade(req.socket, answer);
    return;
  }
  const res = answer.res;
  ctx.status = res.statusCode ?? 502;
  for (const [k, v] of Object.entries(responseHeaders(res))) ctx.set(k, k === 'location' && r.subresource === 'proxy' ? rewriteLocation(String(v), u, ctx.path, rest) : v);
  ctx.body = res;
  req.once('close', () => res.destroy());
}

/** the path after `/proxy` in the request ('' for the bare proxy path) */
function proxyRest(r: ResourceRequest): string {
  const marker = `/${r.target.name ?? ''}/${r.subresource ?? ''}`;
  const at = r.ctx.path.indexOf(marker);
  return at < 0 ? '' : r.ctx.path.slice(at + marker.length);
}

function proxyPath(r: ResourceRequest): string {
  return proxyRest(r) || '/';
}

/** the client's query without the API server's own parameters */
function stripped(q: URLSearchParams): string {
  const out = new URLSearchParams(q);
  out.delete('path');
  const s = out.toString();
  return s ? `?${s}` : '';
}

/** a redirect from the backend to itself is rewritten to go through the proxy path again (kube's location rewriting) */
function rewriteLocation(location: string, backend: URL, requestPath: string, rest: string): string {
  let loc: URL;
  try {
    loc = new URL(location, backend);
  } catch {
    return location;
  }
  if (loc.host !== backend.host) return location;
  const prefix = requestPath.slice(0, requestPath.length - rest.length);
  return `${prefix}${loc.pathname}${loc.search}`;
}

async function reach(open: () => Promise<BackendAnswer>): Promise<BackendAnswer> {
  try {
    return await open();
  } catch (err) {
    if (isApiError(err)) throw err;
    // kube's proxy answers 503 when the backend cannot be dialled
    throw errors.unavailable(`error trying to reach service: ${(err as Error).message}`);
  }
}

/** kube's NewGenericServerResponse for an agent's answer that is neither 400 nor 500 */
function genericServerResponse(code: number, r: ResourceRequest, text: string): Error {
  const fallback: Record<number, [string, string]> = {
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', text],
    404: ['NotFound', 'the server could not find the requested resource'],
    405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    409: ['Conflict', 'the server reported a conflict'],
    429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
    504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
  };
  const [reason, message] = fallback[code] ?? ['', `the server responded with the status code ${code} but did not return more information`];
  return new ApiError(code, (reason || undefined) as StatusReason | undefined, message, {
    name: r.target.name,
    group: r.kind.group,
    kind: r.kind.resource,
    causes: [{ reason: 'UnexpectedServerResponse', message: text }],
  });
}

/** kube's service ResourceLocation: a ready endpoint address, the port by name or number */
async function serviceTarget(r: ResourceRequest, registry: ResourceDeps['registry'], b: ConnectBackends, svc: KubeObject, id: { scheme: string; name: string; port: string }): Promise<string> {
  const none = () => errors.unavailable(`no endpoints available for service ${JSON.stringify(id.name)}`);
  let ep: KubeObject;
  try {
    ep = await registry.get({ kind: b.endpoints, namespace: r.target.namespace, name: id.name }, {});
  } catch (err) {
    if (isApiError(err) && err.code === 404) throw none();
    throw err;
  }
  const svcPorts = ((svc.spec as { ports?: Array<{ name?: string; port?: number }> } | undefined)?.ports ?? []);
  // a number that is a service port means that port's name
  let portName = id.port;
  const asNumber = svcPorts.find((p) => String(p.port) === id.port);
  if (asNumber) portName = asNumber.name ?? '';
  const subsets = ((ep as { subsets?: Array<{ addresses?: Array<{ ip?: string }>; ports?: Array<{ name?: string; port?: number }> }> }).subsets ?? []);
  const choices: string[] = [];
  for (const s of subsets) {
    const port = (s.ports ?? []).find((p) => (p.name ?? '') === portName);
    if (!port?.port) continue;
    for (const a of s.addresses ?? []) if (a.ip) choices.push(`${bracket(a.ip)}:${port.port}`);
  }
  if (choices.length === 0) throw none();
  const pick = choices[Math.floor(Math.random() * choices.length)];
  return `${id.scheme || 'http'}://${pick}`;
}

function noAgent(what: string, node: string): Error {
  return errors.unavailable(`${what} is not available: no node agent serves node ${JSON.stringify(node)} yet`);
}

function bracket(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * kube's container choice of logs, exec and attach: a named container must be one of the pod's
 * (init and ephemeral included); without a name the pod must have exactly one container, which is chosen.
 */
function checkContainer(pod: KubeObject, name: string, container: string): string {
  const spec = (pod.spec ?? {}) as Record<string, unknown>;
  const names = (key: string): string[] =>
    (Array.isArray(spec[key]) ? (spec[key] as Array<{ name?: unknown }>) : []).map((c) => (typeof c?.name === 'string' ? c.name : ''));
  const containers = names('containers');
  if (container === '') {
    if (containers.length === 1) return containers[0];
    if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
    const init = names('initContainers');
    let message = `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    throw errors.badRequest(message);
  }
  if (![...containers, ...names('initContainers'), ...names('ephemeralContainers')].includes(container)) {
    throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
  }
  return container;
}

/** kube's SplitSchemeNamePort: "name", "name:port" or "scheme:name:port" (scheme http or https) */
function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  const [scheme, name, port] = parts.length === 1 ? ['', parts[0], ''] : parts.length === 2 ? ['', parts[0], parts[1]] : parts.length === 3 ? parts : [];
  if (name === undefined || name === '' || !['', 'http', 'https'].includes(scheme)) return undefined;
  return { scheme, name, port };
}
