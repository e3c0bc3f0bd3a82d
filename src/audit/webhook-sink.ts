/**
 * The audit webhook (--audit-webhook-config-file): batches are POSTed as an audit.k8s.io EventList
 * to the server of a kubeconfig-format file (its current context, else its first cluster and user),
 * trusting its CA and presenting its client certificate or bearer token. A failed call (no answer,
 * or a status other than 2xx) is retried with kube's backoff: --audit-webhook-initial-backoff, then
 * 1.5 times longer each time, five attempts in all.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import yaml from 'js-yaml';
import type { AuditSink } from './backend';
import type { AuditEvent } from './types';

export interface WebhookTarget {
  url: URL;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  insecureSkipTlsVerify: boolean;
}

type Named<T> = { name?: string } & T;
interface KubeconfigDoc {
  clusters?: Named<{ cluster?: Record<string, unknown> }>[];
  users?: Named<{ user?: Record<string, unknown> }>[];
  contexts?: Named<{ context?: { cluster?: string; user?: string } }>[];
  'current-context'?: string;
}

/** read the webhook's kubeconfig; any problem is one line naming the file */
export function loadWebhookKubeconfig(file: string): WebhookTarget {
  const fail = (why: string): never => {
    throw new Error(`invalid audit webhook config file ${JSON.stringify(file)}: ${why}`);
  };
  let doc: KubeconfigDoc;
  try {
    doc = (yaml.load(fs.readFileSync(file, 'utf8')) ?? {}) as KubeconfigDoc;
  } catch (err) {
    return fail((err as Error).message.split('\n')[0]);
  }
  if (typeof doc !== 'object' || Array.isArray(doc)) return fail('not a kubeconfig');
  const ctx = doc.contexts?.find((c) => c.name === doc['current-context'])?.context;
  const cluster = (ctx ? doc.clusters?.find((c) => c.name === ctx.cluster) : doc.clusters?.[0])?.cluster;
  const user = (ctx ? doc.users?.find((u) => u.name === ctx.user) : doc.users?.[0])?.user ?? {};
  if (!cluster || typeof cluster.server !== 'string' || cluster.server === '') return fail('no cluster with a server');
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    return fail(`invalid server URL ${JSON.stringify(cluster.server)}`);
  }
  const dir = path.dirname(file);
  const read = (dataKey: string, fileKey: string, from: Record<string, unknown>): Buffer | undefined => {
    try {
      if (typeof from[dataKey] === 'string') return Buffer.from(from[dataKey] as string, 'base64');
      if (typeof from[fileKey] === 'string') return fs.readFileSync(path.resolve(dir, from[fileKey] as string));
    } catch (err) {
      fail(`${fileKey}: ${(err as Error).message}`);
    }
    return undefined;
  };
  let token = typeof user.token === 'string' ? user.token : undefined;
  if (!token && typeof user.tokenFile === 'string') {
    try {
      token = fs.readFileSync(path.resolve(dir, user.tokenFile), 'utf8').trim();
    } catch (err) {
      fail(`tokenFile: ${(err as Error).message}`);
    }
  }
  return {
    url,
    ca: read('certificate-authority-data', 'certificate-authority', cluster),
    cert: read('client-certificate-data', 'client-certificate', user),
    key: read('client-key-data', 'client-key', user),
    token,
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
  };
}

export interface WebhookSinkOptions {
  target: WebhookTarget;
  /** audit.k8s.io/v1 or v1beta1 */
  version: string;
  initialBackoffMs: number;
  /** attempts in all (kube: 5) */
  attempts?: number;
  /** per call (kube's webhook client: 30s) */
  timeoutMs?: number;
}

function post(o: WebhookSinkOptions, body: string): Promise<void> {
  const t = o.target;
  const headers: http.OutgoingHttpHeaders = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Accept: 'application/json' };
  if (t.token) headers.Authorization = `Bearer ${t.token}`;
  const lib = t.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      t.url,
      { method: 'POST', headers, ca: t.ca, cert: t.cert, key: t.key, rejectUnauthorized: !t.insecureSkipTlsVerify, timeout: o.timeoutMs ?? 30_000 },
      (res) => {
        res.resume();
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          if (code >= 200 && code < 300) resolve();
          else reject(new Error(`the audit webhook answered ${code}`));
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('the audit webhook did not answer in time')));
    req.on('error', reject);
    req.end(body);
  });
}

export function createWebhookSink(o: WebhookSinkOptions): AuditSink {
  const attempts = o.attempts ?? 5;
  return {
    async write(events: AuditEvent[]) {
      const body = JSON.stringify({ kind: 'EventList', apiVersion: o.version, metadata: {}, items: events });
      let wait = o.initialBackoffMs;
      for (let i = 1; ; i++) {
        try {
          return await post(o, body);
        } catch (err) {
          if (i >= attempts) throw err;
          await new Promise((r) => setTimeout(r, wait));
          wait *= 1.5;
        }
      }
    },
    close: async () => {},
  };
}
