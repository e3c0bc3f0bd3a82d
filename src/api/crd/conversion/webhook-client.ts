/**
 * The HTTPS POST of a webhook call, as kube's webhook client makes it: JSON in and out, the CA
 * bundle of the client config as the only trusted roots (the system's when it has none), a
 * timeout (kube's rest client also names it in the `timeout` query parameter), and errors worded
 * like Go's (`Post "https://...": dial tcp ...: connect: connection refused`).
 */
import https from 'node:https';
import tls from 'node:tls';
import type { WebhookClientConfig } from '../types';
import { isObject } from '../types';
import type { ResolvedService } from './service-resolver';

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;

export interface WebhookCall {
  config: WebhookClientConfig;
  /** the resolved address of config.service (service-resolver.ts) */
  service?: ResolvedService;
  body: unknown;
  timeoutMs?: number;
}

export class WebhookCallError extends Error {}

function goDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** the URL kube would call (the service's DNS name for service references) */
export function webhookUrl(config: WebhookClientConfig, timeoutMs: number): URL {
  let url: URL;
  if (typeof config.url === 'string') url = new URL(config.url);
  else {
    const s = isObject(config.service) ? config.service : {};
    const port = typeof s.port === 'number' ? s.port : 443;
    url = new URL(`https://${s.name}.${s.namespace}.svc:${port}${typeof s.path === 'string' ? s.path : ''}`);
  }
  url.searchParams.set('timeout', goDuration(timeoutMs));
  return url;
}

function describe(err: NodeJS.ErrnoException, host: string, port: string): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${host}:${port}: connect: connection refused`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${host}: no such host`;
    case 'ETIMEDOUT':
      return `dial tcp ${host}:${port}: i/o timeout`;
    default:
      if (/certificate|self.signed|issuer/i.test(err.message) || err.code?.startsWith('ERR_TLS') || err.code?.includes('CERT')) {
        return `tls: failed to verify certificate: x509: ${err.message}`;
      }
      return err.message;
  }
}

/** POST body as JSON; resolves with the decoded JSON answer of a 2xx, rejects with kube's wording otherwise */
export function callWebhook(call: WebhookCall): Promise<unknown> {
  const timeoutMs = call.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const url = webhookUrl(call.config, timeoutMs);
  const payload = Buffer.from(JSON.stringify(call.body));
  const ca = call.config.caBundle ? Buffer.from(call.config.caBundle, 'base64').toString('utf8') : undefined;
  const host = call.service?.host ?? url.hostname.replace(/^\[|\]$/g, '');
  const port = call.service ? String(call.service.port) : url.port || '443';
  const servername = call.service?.servername ?? url.hostname.replace(/^\[|\]$/g, '');
  const shown = `Post "${url.toString()}"`;
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        method: 'POST',
        host,
        port,
        path: `${url.pathname}${url.search}`,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': payload.length, Host: url.host },
        ...(ca ? { ca } : {}),
        // the certificate is checked for the name kube would call, whatever address answers
        ...(/^[\d.]+$|:/.test(servername) ? {} : { servername }),
        checkServerIdentity: (_host, cert) => tls.checkServerIdentity(servername, cert),
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new WebhookCallError(`${shown}: ${err.message}`)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
            reject(new WebhookCallError(`the server responded with the status code ${res.statusCode} but did not return more information`));
            return;
          }
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(new WebhookCallError(`${(err as Error).message}`));
          }
        });
      },
    );
    req.on('timeout', () => {
      req.destroy(new WebhookCallError(`${shown}: context deadline exceeded`));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(err instanceof WebhookCallError ? err : new WebhookCallError(`${shown}: ${describe(err, host, port)}`));
    });
    req.end(payload);
  });
}
