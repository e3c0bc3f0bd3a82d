/**
 * The connect subresources kube serves on pods, nodes and services, with the kinds and verbs its
 * discovery lists (kube 1.32 `GET /api/v1`). Their answers live in src/http/handlers/connect.ts.
 */
import type { SubresourceDefinition } from '../../kind';

const PROXY_VERBS = ['create', 'delete', 'get', 'patch', 'update'];
const core = (kind: string) => ({ group: '', version: 'v1', kind });

/** pods/attach, exec, log, portforward, proxy */
export function podConnectSubresources(): SubresourceDefinition[] {
  return [
    { name: 'attach', type: 'connect', verbs: ['create', 'get'], kind: core('PodAttachOptions') },
    { name: 'exec', type: 'connect', verbs: ['create', 'get'], kind: core('PodExecOptions') },
    { name: 'log', type: 'connect', verbs: ['get'], kind: core('Pod') },
    { name: 'portforward', type: 'connect', verbs: ['create', 'get'], kind: core('PodPortForwardOptions') },
    { name: 'proxy', type: 'connect', verbs: PROXY_VERBS, kind: core('PodProxyOptions') },
  ];
}

/** nodes/proxy */
export function nodeConnectSubresources(): SubresourceDefinition[] {
  return [{ name: 'proxy', type: 'connect', verbs: PROXY_VERBS, kind: core('NodeProxyOptions') }];
}

/** services/proxy */
export function serviceConnectSubresources(): SubresourceDefinition[] {
  return [{ name: 'proxy', type: 'connect', verbs: PROXY_VERBS, kind: core('ServiceProxyOptions') }];
}
