/**
 * Runtime endpoints as kubelet's --container-runtime-endpoint takes them on Linux: `unix:///path`
 * (or a bare absolute path, which kubelet 1.20 still accepted with a deprecation warning). TCP
 * endpoints were deprecated on Linux and are refused here.
 */

/** the gRPC target for an endpoint: `unix:///run/containerd/containerd.sock` */
export function criTarget(endpoint: string): string {
  if (endpoint.startsWith('unix://')) {
    const socket = endpoint.slice('unix://'.length);
    if (!socket.startsWith('/')) throw new Error(`runtime endpoint ${endpoint}: the socket path must be absolute`);
    return `unix://${socket}`;
  }
  if (endpoint.startsWith('/')) return `unix://${endpoint}`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(endpoint)?.[1];
  throw new Error(
    scheme === undefined
      ? `runtime endpoint ${endpoint}: expected unix:///path/to/socket`
      : `runtime endpoint ${endpoint}: protocol "${scheme}" not supported, only unix`,
  );
}
