/**
 * kube's webhook authorizer (--authorization-webhook-config-file): each decision is asked of a
 * remote service as a SubjectAccessReview (authorization.k8s.io v1 or v1beta1, by
 * --authorization-webhook-version) POSTed to the server its kubeconfig-format file names. Allowed
 * and denied answers are cached by their TTLs; a failed call is no opinion with the error kept.
 */
import { fileErrorWords } from '../../util/files';
import fs from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import path from 'node:path';
import yaml from 'js-yaml';
import type { AuthorizationAttributes, Authorizer, Decision } from '../../api/reviews/authorizer';

/** where and how to call the webhook, from its kubeconfig */
export interface WebhookTarget {
  url: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  insecureSkipTLSVerify?: boolean;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const named = (list: unknown, name: string): Obj | undefined => (Array.isArray(list) ? list.map(obj).find((e) => e.name === name) : undefined);

/** the cluster and user of the kubeconfig's current context (or its first ones); throws one line on errors */
export function loadWebhookKubeconfig(file: string): WebhookTarget {
  const fail = (why: string): never => {
    throw new Error(`--authorization-webhook-config-file ${file}: ${why}`);
  };
  let doc: Obj = {};
  try {
    doc = obj(yaml.load(fs.readFileSync(file, 'utf8')));
  } catch (err) {
    const e = err as Error;
    fail(fileErrorWords(e));
  }
  const base = path.dirname(file);
  const context = obj(named(doc.contexts, String(doc['current-context'] ?? ''))?.context);
  const cluster = obj((named(doc.clusters, String(context.cluster ?? '')) ?? obj(Array.isArray(doc.clusters) ? doc.clusters[0] : undefined)).cluster);
  const user = obj((named(doc.users, String(context.user ?? '')) ?? obj(Array.isArray(doc.users) ? doc.users[0] : undefined)).user);
  const server = typeof cluster.server === 'string' ? cluster.server : '';
  if (server === '') fail('no server found for cluster');
  const read = (dataKey: string, fileKey: string, from: Obj): Buffer | undefined => {
    if (typeof from[dataKey] === 'string') return Buffer.from(from[dataKey] as string, 'base64');
    if (typeof from[fileKey] !== 'string') return undefined;
    const p = path.resolve(base, from[fileKey] as string);
    try {
      return fs.readFileSync(p);
    } catch {
      return fail(`unable to read ${fileKey} ${p}`);
    }
  };
  return {
    url: server,
    ca: read('certificate-authority-data', 'certificate-authority', cluster),
    cert: read('client-certificate-data', 'client-certificate', user),
    key: read('client-key-data', 'client-key', user),
    token: typeof user.token === 'string' ? user.token : undefined,
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
  };
}

/** the SubjectAccessReview kube sends for these attributes */
export function subjectAccessReview(a: AuthorizationAttributes, version: 'v1' | 'v1beta1'): Obj {
  const spec: Obj = {};
  if (a.resourceRequest) {
    const ra: Obj = { namespace: a.namespace ?? '', verb: a.verb, group: a.apiGroup ?? '', version: a.apiVersion ?? '', resource: a.resource ?? '', subresource: a.subresource ?? '', name: a.name ?? '' };
    spec.resourceAttributes = ra;
  } else {
    spec.nonResourceAttributes = { path: a.path ?? '', verb: a.verb };
  }
  if (a.user) {
    spec.user = a.user.name;
    if (a.user.uid) spec.uid = a.user.uid;
    spec[version === 'v1' ? 'groups' : 'group'] = a.user.groups;
    if (a.user.extra) spec.extra = a.user.extra;
  }
  return { apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', spec, status: { allowed: false } };
}

export interface WebhookAuthorizerOptions {
  target: WebhookTarget;
  version: 'v1' | 'v1beta1';
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  timeoutMs?: number;
  now?: () => number;
}

export class WebhookAuthorizer implements Authorizer {
  readonly #opts: WebhookAuthorizerOptions;
  readonly #cache = new Map<string, { decision: Decision; expires: number }>();

  constructor(opts: WebhookAuthorizerOptions) {
    this.#opts = opts;
  }

  async authorize(attributes: AuthorizationAttributes): Promise<Decision> {
    const review = subjectAccessReview(attributes, this.#opts.version);
    const key = JSON.stringify(review.spec);
    const now = (this.#opts.now ?? Date.now)();
    const hit = this.#cache.get(key);
    if (hit && hit.expires > now) return hit.decision;
    let status: Obj;
    try {
      status = obj(obj(await this.#post(review)).status);
    } catch (err) {
      return { allowed: false, evaluationError: `error contacting webhook: ${(err as Error).message}` };
    }
    const decision: Decision = { allowed: status.allowed === true };
    if (!decision.allowed && status.denied === true) decision.denied = true;
    if (typeof status.reason === 'string' && status.reason !== '') decision.reason = status.reason;
    if (typeof status.evaluationError === 'string' && status.evaluationError !== '') decision.evaluationError = status.evaluationError;
    const ttl = decision.allowed ? this.#opts.authorizedTtlMs : this.#opts.unauthorizedTtlMs;
    if (ttl > 0) {
      if (this.#cache.size > 10_000) this.#cache.clear();
      this.#cache.set(key, { decision, expires: now + ttl });
    }
    return decision;
  }

  #post(review: Obj): Promise<unknown> {
    const t = this.#opts.target;
    const body = JSON.stringify(review);
    const url = new URL(t.url);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    if (t.token) headers.authorization = `Bearer ${t.token}`;
    return new Promise((resolve, reject) => {
      const onResponse = (res: http.IncomingMessage): void => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (data += d));
        res.on('end', () => {
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return reject(new Error(`the server responded with status ${res.statusCode}`));
          try {
            resolve(JSON.parse(data));
          } catch {
            reject(new Error('the webhook answered something other than JSON'));
          }
        });
        res.on('error', reject);
      };
      const options: https.RequestOptions = { method: 'POST', headers, timeout: this.#opts.timeoutMs ?? 30_000 };
      const req = url.protocol === 'http:'
        ? http.request(url, options, onResponse)
        : https.request(url, { ...options, ca: t.ca, cert: t.cert, key: t.key, rejectUnauthorized: !t.insecureSkipTLSVerify }, onResponse);
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end(body);
    });
  }
}
