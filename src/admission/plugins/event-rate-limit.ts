/**
 * EventRateLimit (kube's plugin/pkg/admission/eventratelimit): token buckets over the writes of
 * core Events, for the whole server, per namespace, per user, or per event source and involved
 * object; an event over a limit is refused 429 TooManyRequests. Configuration (required): kind
 * Configuration of eventratelimit.admission.k8s.io/v1alpha1 with `limits` of
 * { type: Server | Namespace | User | SourceAndObject, qps, burst, cacheSize }.
 */
import type { Admission, AdmissionAttributes } from '../types';
import type { AdmissionPluginContext } from '../context';
import { ApiError } from '../../api/errors';
import { validating } from '../chain';
import { isObj, pluginConfigError, typedConfiguration } from './plugin-config';

const PLUGIN = 'EventRateLimit';
const TYPES = ['Server', 'Namespace', 'User', 'SourceAndObject'] as const;
type LimitType = (typeof TYPES)[number];
const DEFAULT_CACHE_SIZE = 4096;

/** client-go's token bucket: `burst` tokens, refilled at `qps` a second */
export class TokenBucket {
  #tokens: number;
  #last: number;

  constructor(readonly qps: number, readonly burst: number, private readonly now: () => number) {
    this.#tokens = burst;
    this.#last = now();
  }

  tryAccept(): boolean {
    const t = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((t - this.#last) / 1000) * this.qps);
    this.#last = t;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

interface Limit {
  type: LimitType;
  qps: number;
  burst: number;
  cacheSize: number;
}

function keyOf(type: LimitType, a: AdmissionAttributes): string {
  switch (type) {
    case 'Server':
      return '';
    case 'Namespace':
      return a.namespace;
    case 'User':
      return a.user?.name ?? '';
    case 'SourceAndObject': {
      const e = (a.object ?? {}) as { source?: Record<string, string>; involvedObject?: Record<string, string> };
      const s = e.source ?? {};
      const o = e.involvedObject ?? {};
      return [s.component, s.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].map((v) => v ?? '').join('');
    }
  }
}

/** one limit: a bucket per key, the least recently used forgotten past cacheSize (a Map keeps insertion order) */
class LimitEnforcer {
  readonly #buckets = new Map<string, TokenBucket>();

  constructor(readonly limit: Limit, private readonly now: () => number) {}

  accept(a: AdmissionAttributes): void {
    const key = keyOf(this.limit.type, a);
    let bucket = this.#buckets.get(key);
    if (bucket) this.#buckets.delete(key);
    else bucket = new TokenBucket(this.limit.qps, this.limit.burst, this.now);
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > this.limit.cacheSize) this.#buckets.delete(this.#buckets.keys().next().value as string);
    if (!bucket.tryAccept()) {
      throw new ApiError(429, 'TooManyRequests', `Too many requests: limit reached on type ${this.limit.type} for key ${key}`);
    }
  }
}

function readLimits(ctx: AdmissionPluginContext): Limit[] {
  const config = typedConfiguration(ctx, PLUGIN, 'Configuration', ['eventratelimit.admission.k8s.io/v1alpha1']);
  if (!config) throw pluginConfigError(ctx, PLUGIN, 'a configuration is required (give one in --admission-control-config-file)');
  const limits = config.limits;
  if (!Array.isArray(limits) || limits.length === 0) throw pluginConfigError(ctx, PLUGIN, 'limits: Required value: must not be empty');
  return limits.map((l, i): Limit => {
    const at = `limits[${i}]`;
    if (!isObj(l)) throw pluginConfigError(ctx, PLUGIN, `${at}: must be an object`);
    if (!TYPES.includes(l.type as LimitType)) {
      throw pluginConfigError(ctx, PLUGIN, `${at}.type: Unsupported value: ${JSON.stringify(l.type ?? '')}: supported values: ${TYPES.map((t) => `"${t}"`).join(', ')}`);
    }
    if (typeof l.qps !== 'number' || l.qps <= 0) throw pluginConfigError(ctx, PLUGIN, `${at}.qps: Invalid value: ${JSON.stringify(l.qps ?? 0)}: must be positive`);
    if (typeof l.burst !== 'number' || l.burst <= 0 || !Number.isInteger(l.burst)) throw pluginConfigError(ctx, PLUGIN, `${at}.burst: Invalid value: ${JSON.stringify(l.burst ?? 0)}: must be positive`);
    const cacheSize = l.cacheSize ?? 0;
    if (typeof cacheSize !== 'number' || cacheSize < 0 || !Number.isInteger(cacheSize)) throw pluginConfigError(ctx, PLUGIN, `${at}.cacheSize: Invalid value: ${JSON.stringify(cacheSize)}: must not be negative`);
    return { type: l.type as LimitType, qps: l.qps, burst: l.burst, cacheSize: cacheSize || DEFAULT_CACHE_SIZE };
  });
}

export function eventRateLimit(ctx: AdmissionPluginContext, now: () => number = Date.now): Admission {
  const enforcers = readLimits(ctx).map((l) => new LimitEnforcer(l, now));
  return validating((a) => {
    // kube limits the core group's Event kind (events.k8s.io writes are not counted), never deletes
    if (a.operation === 'DELETE' || a.operation === 'CONNECT' || a.kind.group !== '' || a.kind.kind !== 'Event') return;
    for (const e of enforcers) e.accept(a);
  });
}
