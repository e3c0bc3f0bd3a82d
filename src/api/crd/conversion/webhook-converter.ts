/**
 * kube's webhookConverter: objects of a custom resource converted to another version by one
 * ConversionReview (apiextensions.k8s.io v1 or v1beta1, the first of the CRD's
 * conversionReviewVersions Ballast speaks) POSTed to the CRD's webhook. Objects already in the
 * desired version are not sent. The answer is checked as kube checks it (uid, Success, count,
 * apiVersion, kind, name, namespace, uid of every object) and each converted object gets the
 * original metadata back, with the webhook's labels and annotations. Failures are kube's 500:
 * `conversion webhook for stable.example.com/v1, Kind=CronTab failed: ...`.
 */
import { randomUUID } from 'node:crypto';
import { errors } from '../../errors';
import type { ApiError } from '../../errors';
import type { KubeObject } from '../../kind';
import { validateAnnotations, validateLabels } from '../../validation';
import { isObject } from '../types';
import type { WebhookClientConfig } from '../types';
import { callWebhook } from './webhook-client';
import type { ResolvedService } from './service-resolver';

export interface WebhookConverterOptions {
  group: string;
  kind: string;
  clientConfig: WebhookClientConfig;
  reviewVersions: string[];
  /** where config.service answers (resolved per call: endpoints move) */
  resolve?(): Promise<ResolvedService>;
  timeoutMs?: number;
}

class ConversionFailure extends Error {}

const gvk = (group: string, apiVersion: unknown, kind: string) => `${typeof apiVersion === 'string' && apiVersion.includes('/') ? apiVersion : `${group}/${String(apiVersion ?? '')}`}, Kind=${kind}`;

/** kube's restoreObjectMeta: the original metadata, with the webhook's labels and annotations */
function restoreMetadata(original: KubeObject, converted: KubeObject): void {
  const answered = converted.metadata;
  if (!isObject(answered)) throw new ConversionFailure('missing metadata in converted object');
  const meta: Record<string, unknown> = structuredClone(original.metadata ?? {});
  for (const field of ['labels', 'annotations'] as const) {
    const v = answered[field];
    if (v === undefined || v === null) {
      delete meta[field];
      continue;
    }
    if (!isObject(v)) throw new ConversionFailure(`invalid metadata.${field} of type ${Array.isArray(v) ? '[]interface {}' : typeof v} in converted object`);
    for (const [k, x] of Object.entries(v)) if (typeof x !== 'string') throw new ConversionFailure(`metadata.${field}[${k}] must be a string, but is ${typeof x} in converted object`);
    if (JSON.stringify(v) !== JSON.stringify(meta[field] ?? {})) {
      const causes = field === 'labels' ? validateLabels(v, 'metadata.labels') : validateAnnotations(v, 'metadata.annotation');
      if (causes.length) throw new ConversionFailure(causes.map((c) => `${c.field}: ${c.message}`).join(', '));
    }
    meta[field] = v;
  }
  converted.metadata = meta;
}

export class WebhookConverter {
  readonly #o: WebhookConverterOptions;

  constructor(options: WebhookConverterOptions) {
    this.#o = options;
  }

  /** the review version to send: the first of the CRD's list Ballast speaks */
  #reviewVersion(): 'v1' | 'v1beta1' {
    const v = this.#o.reviewVersions.find((x) => x === 'v1' || x === 'v1beta1');
    if (!v) throw new ConversionFailure('no supported conversion review versions');
    return v as 'v1' | 'v1beta1';
  }

  /** objects converted to `apiVersion` (new objects; the input is not changed), in order */
  async convert(objects: readonly KubeObject[], apiVersion: string): Promise<KubeObject[]> {
    const todo = objects.map((o, i) => [o, i] as const).filter(([o]) => o.apiVersion !== apiVersion);
    if (todo.length === 0) return [...objects];
    const label = gvk(this.#o.group, todo[0][0].apiVersion, this.#o.kind);
    try {
      const converted = await this.#review(todo.map(([o]) => o), apiVersion, label);
      const out = [...objects];
      todo.forEach(([, i], j) => (out[i] = converted[j]));
      return out;
    } catch (err) {
      throw this.#failure(err, label);
    }
  }

  #failure(err: unknown, label: string): ApiError {
    const message = err instanceof Error ? err.message : String(err);
    return errors.internal(message.startsWith('conversion webhook for ') ? message : `conversion webhook for ${label} failed: ${message}`);
  }

  async #review(objects: KubeObject[], apiVersion: string, label: string): Promise<KubeObject[]> {
    const version = this.#reviewVersion();
    const uid = randomUUID();
    const request = {
      kind: 'ConversionReview',
      apiVersion: `apiextensions.k8s.io/${version}`,
      request: { uid, desiredAPIVersion: apiVersion, objects },
    };
    const service = this.#o.clientConfig.service && this.#o.resolve ? await this.#o.resolve() : undefined;
    const answer = await callWebhook({ config: this.#o.clientConfig, service, body: request, timeoutMs: this.#o.timeoutMs });
    if (!isObject(answer)) throw new ConversionFailure('unrecognized response type');
    if (version === 'v1' && (answer.apiVersion !== 'apiextensions.k8s.io/v1' || answer.kind !== 'ConversionReview')) {
      throw new ConversionFailure(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${String(answer.apiVersion ?? '')}, Kind=${String(answer.kind ?? '')}`);
    }
    const response = answer.response;
    if (!isObject(response)) throw new ConversionFailure('no response provided');
    if (version === 'v1' && response.uid !== uid) throw new ConversionFailure(`expected response.uid="${uid}", got "${String(response.uid ?? '')}"`);
    const result = isObject(response.result) ? response.result : {};
    if (result.status !== 'Success') {
      if (typeof result.message === 'string' && result.message) throw new ConversionFailure(result.message);
      throw new ConversionFailure(`response.result.status was '${String(result.status ?? '')}', not 'Success'`);
    }
    const converted = Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
    if (converted.length !== objects.length) throw new ConversionFailure(`conversion webhook for ${label} returned ${converted.length} objects, expected ${objects.length}`);
    return converted.map((c, i) => this.#checked(objects[i], c, apiVersion, i, label));
  }

  #checked(original: KubeObject, value: unknown, apiVersion: string, index: number, label: string): KubeObject {
    const at = `conversion webhook for ${label} returned invalid converted object at index ${index}`;
    if (!isObject(value)) throw new ConversionFailure(`${at}: invalid type, expected=Unstructured`);
    const c = value as KubeObject;
    if (c.apiVersion !== apiVersion) throw new ConversionFailure(`${at}: invalid groupVersion (expected ${apiVersion}, received ${String(c.apiVersion ?? '')})`);
    if (c.kind !== original.kind) throw new ConversionFailure(`${at}: invalid kind (expected ${original.kind}, received ${String(c.kind ?? '')})`);
    const m = isObject(c.metadata) ? c.metadata : {};
    const om = original.metadata ?? {};
    for (const f of ['name', 'namespace', 'uid'] as const) {
      if ((m[f] ?? '') !== (om[f] ?? '')) throw new ConversionFailure(`${at}: must have the same ${f}: ${String(om[f] ?? '')} != ${String(m[f] ?? '')}`);
    }
    try {
      restoreMetadata(original, c);
    } catch (err) {
      throw new ConversionFailure(`conversion webhook for ${label} returned invalid metadata in object at index ${index}: ${(err as Error).message}`);
    }
    return c;
  }
}
