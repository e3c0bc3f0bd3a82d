/**
 * What both webhook admission phases share: the matching webhooks of a request, the dry-run rule
 * of spec 1 section 7 (a dry run may only call webhooks without side effects: None or
 * NoneOnDryRun; any other is a 400 before anything is called), and one call with its
 * failurePolicy (Fail: the request fails with kube's internal error; Ignore: logged and skipped).
 */
import { errors, isApiError } from '../../api/errors';
import type { KubeObject } from '../../api/kind';
import type { Registry } from '../../api/registry/types';
import type { Scheme } from '../../api/scheme';
import { str } from '../../api/kinds/util';
import type { AdmissionAttributes } from '../types';
import { CallError, callTarget, post, timeoutSecondsOf, type ServiceRouting } from './client';
import type { WebhookConfigurationSource } from './configuration-source';
import { callingWebhookError, dryRunUnsupported } from './errors';
import { matchWebhook, type WebhookInvocation } from './matcher';
import { InvalidResponseError, buildReview, parseResponse, reviewVersionFor, type ReviewResponse } from './review';

/** the admission attributes with the warnings webhooks return, for the response's Warning headers */
export type WebhookAdmissionAttributes = AdmissionAttributes & { warnings?: string[] };

/** the part of a pino logger the webhooks use */
export interface WebhookLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface WebhookAdmissionOptions {
  registry: Registry;
  scheme: Scheme;
  /** how a clientConfig.service is reached (default 'cluster', kube's default) */
  serviceRouting?: ServiceRouting;
  log?: WebhookLogger;
  /** how long a request waits for the first list of configurations (default 10 s, as kube) */
  readyTimeoutMs?: number;
}

export function webhookName(inv: WebhookInvocation): string {
  return str(inv.entry.hook.name);
}

/** the webhooks of `source` that `a` calls, in order; throws the dry-run refusal */
export async function matchingWebhooks(source: WebhookConfigurationSource, a: AdmissionAttributes, opts: WebhookAdmissionOptions): Promise<WebhookInvocation[]> {
  await waitForReady(source, a, opts.readyTimeoutMs ?? 10_000);
  const out: WebhookInvocation[] = [];
  const matchOpts = { registry: opts.registry, scheme: opts.scheme, namespaceLabels: new Map() };
  for (const entry of source.webhooks()) {
    const inv = await matchWebhook(entry, a, matchOpts);
    if (!inv) continue;
    if (a.dryRun && !['None', 'NoneOnDryRun'].includes(str(inv.entry.hook.sideEffects))) throw dryRunUnsupported(webhookName(inv));
    if (inv.resource !== a.kind && !inv.converted) {
      opts.log?.warn(
        { webhook: webhookName(inv), resource: inv.resource.resource, version: inv.resource.version, requestVersion: a.kind.version },
        'no conversion of the object to the webhook\'s version; it is sent in the request\'s version',
      );
    }
    out.push(inv);
  }
  return out;
}

/** kube waits up to 10 s for the first list of configurations, then refuses (403) */
async function waitForReady(source: WebhookConfigurationSource, a: AdmissionAttributes, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ready = await Promise.race([
    source.ready().then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (!ready) throw errors.forbidden({ group: a.kind.group, resource: a.kind.resource }, a.name, 'not yet ready to handle request');
}

export function addWarnings(a: WebhookAdmissionAttributes, warnings: string[]): void {
  if (warnings.length === 0) return;
  (a.warnings ??= []).push(...warnings);
}

/**
 * Call one webhook with the objects as it is to see them. Resolves with its answer, or undefined
 * when the call failed and the webhook's failurePolicy is Ignore.
 */
export async function callWebhook(
  inv: WebhookInvocation,
  a: AdmissionAttributes,
  objects: { object?: KubeObject; oldObject?: KubeObject },
  mutating: boolean,
  opts: WebhookAdmissionOptions,
): Promise<ReviewResponse | undefined> {
  const hook = inv.entry.hook;
  const name = webhookName(inv);
  try {
    const version = reviewVersionFor(hook);
    if (!version) {
      const asked = (Array.isArray(hook.admissionReviewVersions) ? hook.admissionReviewVersions : []).map(String);
      throw new CallError(`webhook does not accept known AdmissionReview versions: ${JSON.stringify(asked)}`);
    }
    const review = buildReview(version, inv, a, objects);
    const uid = str((review.request as Record<string, unknown>).uid);
    let body: unknown;
    try {
      body = await post(await callTarget(hook, opts), review, timeoutSecondsOf(hook));
    } catch (err) {
      // kube's words since 1.23: `failed to call webhook: Post "https://...": ...`
      if (err instanceof CallError) throw new CallError(`failed to call webhook: ${err.message}`);
      throw err;
    }
    try {
      return parseResponse(version, body, uid, mutating);
    } catch (err) {
      if (err instanceof InvalidResponseError) throw new CallError(`received invalid webhook response: ${err.message}`);
      throw err;
    }
  } catch (err) {
    if (!(err instanceof CallError)) {
      if (isApiError(err)) throw err;
      throw callingWebhookError(name, err instanceof Error ? err.message : String(err));
    }
    if (str(hook.failurePolicy) === 'Ignore') {
      opts.log?.warn({ webhook: name, err: err.message }, 'failed calling webhook, failing open');
      return undefined;
    }
    throw callingWebhookError(name, err.message);
  }
}
