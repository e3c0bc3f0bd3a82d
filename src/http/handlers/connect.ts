/**
 * Connect subresources (pods/log, exec, attach, portforward, proxy; nodes/proxy; services/proxy):
 * streams and proxies that a node agent or a service answers. Until a node agent serves them,
 * the answer says so instead of looking like a missing object.
 */
import { errors } from '../../api/errors';
import type { ResourceDeps, ResourceRequest } from './types';

export async function connectResource(r: ResourceRequest, _deps: ResourceDeps): Promise<void> {
  const what = `${r.kind.resource}/${r.subresource}`;
  throw errors.unavailable(`${what} is not available: no node agent serves it yet`);
}
