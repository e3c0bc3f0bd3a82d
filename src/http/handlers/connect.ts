/**
 * Connect subresources (pods/log, exec, attach, portforward, proxy; nodes/proxy; services/proxy):
 * streams and proxies that a node agent or a service answers. What kube answers without a node
 * agent is answered as kube does: the object missing (404), a container the pod does not have or a
 * pod not bound to a node (400, kube's messages), the log of an unbound pod (empty). The rest is a
 * 503 ServiceUnavailable saying plainly what is missing, never a 404 that reads as "no such pod".
 * kubectl prints these Status answers for logs, and for exec and attach after a failed upgrade
 * (SPDY, or WebSocket first with kubectl 1.30+, which then falls back to SPDY).
 */
import { isIP } from 'node:net';
import { errors } from '../../api/errors';
import type { KubeObject } from '../../api/kind';
import type { ResourceDeps, ResourceRequest } from './types';
import { admitConnect } from './connect-admission';

export async function connectResource(r: ResourceRequest, deps: ResourceDeps): Promise<void> {
  const what = `${r.kind.resource}/${r.subresource}`;
  // kube's ConnectAdmission runs before the object is looked up; pods/log is a read, not a connect
  if (!(r.kind.group === '' && r.kind.resource === 'pods' && r.subresource === 'log')) await admitConnect(r, deps.admission);
  if (r.kind.group === '' && r.kind.resource === 'pods') return connectPod(r, deps, what);
  const id = splitSchemeNamePort(r.target.name ?? '');
  if (!id) throw errors.badRequest(`invalid ${r.kind.singular} request ${JSON.stringify(r.target.name ?? '')}`);
  await deps.registry.get({ ...r.target, name: id.name }, {});
  // kube proxies a service to one of its ready endpoints; none are kept here yet
  if (r.kind.resource === 'services') throw errors.unavailable(`no endpoints available for service ${JSON.stringify(id.name)}`);
  if (r.kind.resource === 'nodes') throw noAgent(what, id.name);
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
    throw errors.unavailable(`${what} is not available: Ballast does not proxy to pod IPs yet (pod ${JSON.stringify(id.name)}, ${podIP})`);
  }
  const pod = await deps.registry.get(r.target, {});
  const name = pod.metadata?.name ?? r.target.name ?? '';
  if (sub === 'log' || sub === 'exec' || sub === 'attach') checkContainer(pod, name, query.get('container') ?? '');
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
  throw noAgent(what, nodeName);
}

function noAgent(what: string, node: string): Error {
  return errors.unavailable(`${what} is not available: no node agent serves node ${JSON.stringify(node)} yet`);
}

/**
 * kube's container check of logs, exec and attach: a named container must be one of the pod's
 * (init and ephemeral included); without a name the pod must have exactly one container.
 */
function checkContainer(pod: KubeObject, name: string, container: string): void {
  const spec = (pod.spec ?? {}) as Record<string, unknown>;
  const names = (key: string): string[] =>
    (Array.isArray(spec[key]) ? (spec[key] as Array<{ name?: unknown }>) : []).map((c) => (typeof c?.name === 'string' ? c.name : ''));
  const containers = names('containers');
  if (container === '') {
    if (containers.length === 1) return;
    if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
    const init = names('initContainers');
    let message = `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    throw errors.badRequest(message);
  }
  if (![...containers, ...names('initContainers'), ...names('ephemeralContainers')].includes(container)) {
    throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
  }
}

/** kube's SplitSchemeNamePort: "name", "name:port" or "scheme:name:port" (scheme http or https) */
function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  const [scheme, name, port] = parts.length === 1 ? ['', parts[0], ''] : parts.length === 2 ? ['', parts[0], parts[1]] : parts.length === 3 ? parts : [];
  if (name === undefined || name === '' || !['', 'http', 'https'].includes(scheme)) return undefined;
  return { scheme, name, port };
}
