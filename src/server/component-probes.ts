/**
 * The health probes behind `kubectl get componentstatuses`, as kube-apiserver 1.32 makes them: the
 * scheduler and the controller manager by GET https://127.0.0.1:<port>/healthz without verifying
 * their certificates (kube's componentstatus servers), the store by its own ping (kube probes
 * etcd's health as `etcd-0`). Probe failures read as Go's HTTP client words them, so the table
 * says what kube's says: `Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259:
 * connect: connection refused`.
 */
import https from 'node:https';
import type { ComponentProbe, ProbeResult } from '../api/virtual';

/** kube's probe reads at most this much of a body */
const MAX_BODY = 10 * 1024;

export interface HttpsHealthProbeOptions {
  name: string;
  host: string;
  port: number;
  path: string;
  /** kube waits 20 s; a short wait keeps `kubectl get cs` quick when nothing answers */
  timeoutMs: number;
}

/** Go's net error text for a failed dial or read */
function goError(err: NodeJS.ErrnoException, host: string, port: number): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${host}:${port}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${host}:${port}: connect: no route to host`;
    case 'ECONNRESET':
      return 'read: connection reset by peer';
    default:
      return err.message;
  }
}

export function httpsHealthProbe(o: HttpsHealthProbeOptions): ComponentProbe {
  const url = `https://${o.host}:${o.port}${o.path}`;
  return {
    name: o.name,
    check: () =>
      new Promise<ProbeResult>((resolve) => {
        const fail = (why: string): void => resolve({ healthy: false, message: `Get ${JSON.stringify(url)}: ${why}` });
        const req = https.get(url, { rejectUnauthorized: false, timeout: o.timeoutMs, headers: { 'User-Agent': 'kube-probe/1.32' } }, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size < MAX_BODY) chunks.push(c);
            size += c.length;
          });
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            const body = Buffer.concat(chunks).subarray(0, MAX_BODY).toString('utf8');
            if (code >= 200 && code < 400) resolve({ healthy: true, message: body });
            else resolve({ healthy: false, message: `HTTP probe failed with statuscode: ${code}` });
          });
          res.on('error', (err) => fail(goError(err, o.host, o.port)));
        });
        req.on('timeout', () => {
          req.destroy();
          fail('context deadline exceeded (Client.Timeout exceeded while awaiting headers)');
        });
        req.on('error', (err: NodeJS.ErrnoException) => fail(goError(err, o.host, o.port)));
      }),
  };
}

/** the store as kube's etcd component: `ok` when it answers, the error otherwise */
export function storeProbe(name: string, ping: () => Promise<void>): ComponentProbe {
  return {
    name,
    async check() {
      try {
        await ping();
        return { healthy: true, message: 'ok' };
      } catch (err) {
        return { healthy: false, message: '', error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}

/** kube's default components: scheduler (10259), controller-manager (10257), the store as etcd-0 */
export function defaultComponentProbes(ping: () => Promise<void>, timeoutMs = 3000): ComponentProbe[] {
  return [
    httpsHealthProbe({ name: 'scheduler', host: '127.0.0.1', port: 10259, path: '/healthz', timeoutMs }),
    httpsHealthProbe({ name: 'controller-manager', host: '127.0.0.1', port: 10257, path: '/healthz', timeoutMs }),
    storeProbe('etcd-0', ping),
  ];
}
