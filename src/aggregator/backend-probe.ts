/**
 * kube's discovery probe of an extension server: GET /apis/<group>/<version> (/api/v1 for the core
 * registration) on an endpoint the resolver picks, as system:kube-aggregator in system:masters,
 * without verifying the server, within 5 s; any 2xx answer passes. Failures are worded as
 * kube words them in the FailedDiscoveryCheck message.
 */
import https from 'node:https';
import type { APIService } from './apiservice';
import { servicePort } from './apiservice';
import { goDialError } from './backend-errors';
import type { ProxyClientCert } from './backend-tls';
import { probeTlsOptions } from './backend-tls';
import type { FrontProxyHeaderNames } from './front-proxy-headers';
import { DEFAULT_FRONT_PROXY_HEADERS } from './front-proxy-headers';
import type { ServiceResolver } from './service-resolver';

/** kube's http.Client timeout of the probe */
export const PROBE_TIMEOUT_MS = 5000;

export interface ProbeOptions {
  resolver: () => ServiceResolver;
  clientCert?: ProxyClientCert;
  headerNames?: FrontProxyHeaderNames;
  timeoutMs?: number;
}

export function discoveryProbe(o: ProbeOptions): (s: APIService) => Promise<string | undefined> {
  const names = o.headerNames ?? DEFAULT_FRONT_PROXY_HEADERS;
  const timeoutMs = o.timeoutMs ?? PROBE_TIMEOUT_MS;
  return (s) => {
    const ref = s.spec.service ?? {};
    let host: string;
    let port: number;
    try {
      ({ host, port } = o.resolver().resolve(ref.namespace ?? '', ref.name ?? '', servicePort(s)));
    } catch (err) {
      return Promise.resolve((err as Error).message);
    }
    const path = s.metadata.name === 'v1.' ? `/api/${s.spec.version}` : `/apis/${s.spec.group}/${s.spec.version}`;
    const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
    const failing = (detail: string): string => `failing or missing response from ${url}: ${detail}`;
    return new Promise((resolve) => {
      const req = https.request({
        host,
        port,
        path,
        method: 'GET',
        agent: false,
        headers: { [names.user]: 'system:kube-aggregator', [names.group]: 'system:masters' },
        ...probeTlsOptions(o.clientCert),
      });
      const timer = setTimeout(() => {
        req.destroy();
        resolve(failing(`Get ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`));
      }, timeoutMs);
      req.on('response', (res) => {
        clearTimeout(timer);
        res.resume();
        const code = res.statusCode ?? 0;
        resolve(code >= 200 && code < 300 ? undefined : failing(`bad status from ${url}: ${code}`));
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        resolve(failing(`Get ${JSON.stringify(url)}: ${goDialError(err, host, port)}`));
      });
      req.end();
    });
  };
}
