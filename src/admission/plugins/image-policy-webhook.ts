/**
 * ImagePolicyWebhook (kube's plugin/pkg/admission/imagepolicy): before a pod is stored, an
 * ImageReview (imagepolicy.k8s.io/v1alpha1) with its containers' images, its annotations matching
 * `*.image-policy.k8s.io/*` and its namespace is POSTed to the backend its kubeconfig names; a
 * denial is 403 Forbidden with the backend's reason. When the backend cannot be reached the pod is
 * admitted only with defaultAllow (and marked alpha.image-policy.k8s.io/failed-open=true). Answers
 * are cached: allowTTL seconds for allowed, denyTTL for denied.
 *
 * Configuration: `imagePolicy: { kubeConfigFile, allowTTL, denyTTL, retryBackoff, defaultAllow }`,
 * bare or in an ImagePolicyWebhookConfiguration of imagepolicy.k8s.io/v1alpha1; a relative
 * kubeConfigFile is read from the configuration file's folder.
 */
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { Admission } from '../types';
import type { AdmissionPluginContext } from '../context';
import { admissionForbidden, isResource } from '../forbidden';
import { validating } from '../chain';
import type { WebhookTarget } from '../../auth/authz/webhook';
import { loadWebhookKubeconfig } from '../../auth/authz/webhook';
import { allContainers, podSpec } from './pod';
import { annotationsOf, isObj, pluginConfigError } from './plugin-config';

const PLUGIN = 'ImagePolicyWebhook';
const FAILED_OPEN = 'alpha.image-policy.k8s.io/failed-open';
const CACHE_SIZE = 1024;

interface ImagePolicyConfig {
  target: WebhookTarget;
  allowTtlMs: number;
  denyTtlMs: number;
  retryBackoffMs: number;
  defaultAllow: boolean;
}

interface ReviewStatus {
  allowed: boolean;
  reason?: string;
}

/** kube's normalizeWebhookConfig: 0 is the default, anything else must be inside [min, max] */
function duration(ctx: AdmissionPluginContext, c: Record<string, unknown>, field: string, min: number, max: number, fallback: number): number {
  const v = c[field] ?? 0;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw pluginConfigError(ctx, PLUGIN, `imagePolicy.${field} must be a number`);
  if (v === 0) return fallback;
  if (v < min || v > max) throw pluginConfigError(ctx, PLUGIN, `imagePolicy.${field}: valid value is between ${min} and ${max}, got ${v}`);
  return v;
}

function readConfig(ctx: AdmissionPluginContext): ImagePolicyConfig {
  const c = ctx.configuration;
  if (!isObj(c)) throw pluginConfigError(ctx, PLUGIN, 'a configuration with imagePolicy is required (give one in --admission-control-config-file)');
  if (c.kind !== undefined && c.kind !== 'ImagePolicyWebhookConfiguration') {
    throw pluginConfigError(ctx, PLUGIN, `expected kind ImagePolicyWebhookConfiguration of apiVersion imagepolicy.k8s.io/v1alpha1, got ${String(c.kind)}`);
  }
  const p = c.imagePolicy;
  if (!isObj(p)) throw pluginConfigError(ctx, PLUGIN, 'imagePolicy: Required value');
  if (typeof p.kubeConfigFile !== 'string' || p.kubeConfigFile === '') throw pluginConfigError(ctx, PLUGIN, 'imagePolicy.kubeConfigFile: Required value');
  if (p.defaultAllow !== undefined && typeof p.defaultAllow !== 'boolean') throw pluginConfigError(ctx, PLUGIN, 'imagePolicy.defaultAllow must be true or false');
  const file = path.resolve(ctx.configurationFile ? path.dirname(ctx.configurationFile) : '.', p.kubeConfigFile);
  let target: WebhookTarget;
  try {
    target = loadWebhookKubeconfig(file);
  } catch (err) {
    throw pluginConfigError(ctx, PLUGIN, `kubeConfigFile ${(err as Error).message.replace(/^--authorization-webhook-config-file /, '')}`);
  }
  return {
    target,
    // seconds, as kube reads them: allowed answers 5 minutes by default, denied 30 seconds
    allowTtlMs: duration(ctx, p, 'allowTTL', 1, 1800, 300) * 1000,
    denyTtlMs: duration(ctx, p, 'denyTTL', 1, 1800, 30) * 1000,
    // milliseconds
    retryBackoffMs: duration(ctx, p, 'retryBackoff', 1, 300_000, 500),
    defaultAllow: p.defaultAllow === true,
  };
}

class WebhookCallError extends Error {
  constructor(message: string, readonly retriable: boolean) {
    super(message);
  }
}

function post(target: WebhookTarget, body: unknown): Promise<unknown> {
  const data = JSON.stringify(body);
  const url = new URL(target.url);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'content-length': String(Buffer.byteLength(data)) };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage): void => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        if (code < 200 || code >= 300) return reject(new WebhookCallError(`Error contacting webhook: ${code}`, code >= 500 || code === 429));
        try {
          resolve(JSON.parse(text));
        } catch (err) {
          reject(new WebhookCallError(`the webhook's answer is not JSON: ${(err as Error).message}`, false));
        }
      });
      res.on('error', (err) => reject(new WebhookCallError(err.message, true)));
    };
    const options = { method: 'POST', headers, timeout: 30_000 };
    const req = url.protocol === 'https:'
      ? https.request(url, { ...options, ca: target.ca, cert: target.cert, key: target.key, rejectUnauthorized: !target.insecureSkipTLSVerify }, onResponse)
      : http.request(url, options, onResponse);
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', (err) => reject(new WebhookCallError(`Post "${target.url}": ${err.message}`, true)));
    req.end(data);
  });
}

export function imagePolicyWebhook(ctx: AdmissionPluginContext): Admission {
  const config = readConfig(ctx);
  const cache = new Map<string, { status: ReviewStatus; expires: number }>();

  /** the backend's answer, retried with a doubling backoff on connection errors and 5xx (three tries) */
  const ask = async (review: Record<string, unknown>): Promise<ReviewStatus> => {
    let wait = config.retryBackoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await post(config.target, review);
        const status = isObj(answer) && isObj(answer.status) ? answer.status : {};
        return { allowed: status.allowed === true, reason: typeof status.reason === 'string' ? status.reason : undefined };
      } catch (err) {
        if (!(err instanceof WebhookCallError && err.retriable) || attempt >= 3) throw err;
        await new Promise((r) => setTimeout(r, wait));
        wait *= 2;
      }
    }
  };

  return validating(async (a) => {
    if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || !isResource(a, '', 'pods') || !a.object) return;
    const spec = podSpec(a.object);
    const annotations = Object.fromEntries(Object.entries(annotationsOf(a.object)).filter(([k]) => k.includes('.image-policy.k8s.io/')));
    const reviewSpec = { containers: allContainers(spec).map((c) => ({ image: c.image ?? '' })), annotations, namespace: a.namespace };
    const key = JSON.stringify(reviewSpec);
    const now = Date.now();
    const hit = cache.get(key);
    let status = hit && hit.expires > now ? hit.status : undefined;
    if (!status) {
      try {
        status = await ask({ apiVersion: 'imagepolicy.k8s.io/v1alpha1', kind: 'ImageReview', spec: reviewSpec });
      } catch (err) {
        if (!config.defaultAllow) throw admissionForbidden(a, (err as Error).message);
        const meta = (a.object.metadata ??= {});
        meta.annotations = { ...(meta.annotations ?? {}), [FAILED_OPEN]: 'true' };
        return;
      }
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(key, { status, expires: now + (status.allowed ? config.allowTtlMs : config.denyTtlMs) });
    }
    if (status.allowed) return;
    throw admissionForbidden(a, status.reason ? `image policy webhook backend denied one or more images: ${status.reason}` : 'one or more images rejected by webhook backend');
  });
}
