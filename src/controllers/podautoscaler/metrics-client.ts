/**
 * The resource metrics client of kube's HPA controller (metrics/client.go): the PodMetrics of the
 * selected pods from the aggregated metrics.k8s.io/v1beta1 API, each pod's usage summed over its
 * containers (a pod lacking the resource in a container has no metric), with kube's errors.
 */
import { parseQuantity } from '../../admission/quantity';
import { ApiError } from '../../client/errors';
import type { RestClient } from '../../client/rest-client';
import type { PodMetric } from './replica-calculator';

interface PodMetrics {
  metadata?: { name?: string };
  timestamp?: string;
  window?: string;
  containers?: Array<{ name?: string; usage?: Record<string, unknown> }>;
}

/** a Go duration as the metrics API writes it (`30s`, `1m0s`, `500ms`) in milliseconds */
export function parseDuration(s: string | undefined): number {
  if (!s) return 0;
  let total = 0;
  for (const [, n, unit] of s.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) {
    const scale: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };
    total += Number(n) * scale[unit];
  }
  return total;
}

export class MetricsError extends Error {}

export async function resourceMetrics(client: RestClient, namespace: string, selector: string, resource: string): Promise<Map<string, PodMetric>> {
  let list: { items?: PodMetrics[] };
  try {
    list = (await client.request('GET', `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods`, { query: { labelSelector: selector } })) as { items?: PodMetrics[] };
  } catch (err) {
    // client-go's words for a 404 that carries no Status of the metrics API's own
    const why = err instanceof ApiError && err.code === 404 ? 'the server could not find the requested resource (get pods.metrics.k8s.io)' : err instanceof Error ? err.message : String(err);
    throw new MetricsError(`unable to fetch metrics from resource metrics API: ${why}`);
  }
  const items = list.items ?? [];
  if (items.length === 0) throw new MetricsError('no metrics returned from resource metrics API');
  const metrics = new Map<string, PodMetric>();
  for (const m of items) {
    const containers = m.containers ?? [];
    let sum = 0;
    let missing = containers.length === 0;
    for (const c of containers) {
      const q = parseQuantity(c.usage?.[resource]);
      if (q === undefined) {
        missing = true;
        break;
      }
      sum += Math.round(q * 1000);
    }
    if (!missing) metrics.set(m.metadata?.name ?? '', { value: sum, timestamp: Date.parse(m.timestamp ?? '') || 0, windowMs: parseDuration(m.window) });
  }
  return metrics;
}
