/**
 * Request metrics (kube's instrumentation of every handler): apiserver_request_total,
 * apiserver_request_duration_seconds, apiserver_response_sizes, apiserver_current_inflight_requests,
 * apiserver_longrunning_requests, apiserver_registered_watchers, apiserver_request_aborts_total and
 * apiserver_request_terminations_total (the 504s of --request-timeout).
 *
 * A request is recorded when its response closes, so the code is the one the client received
 * (including every error Status and Koa's own answers) and a watch counts once, when it ends.
 * The middleware runs right after the request log, which has parsed the request info.
 */
import type { ApiServerMetrics } from '../../metrics/apiserver-metrics';
import { requestLabels } from '../../metrics/request-labels';
import type { ApiContext, ApiMiddleware } from '../context';
import { isLongRunning, isMutating } from '../request-info';

export interface RequestMetricsOptions {
  metrics: ApiServerMetrics;
  /** the kind served at group/version/resource, for apiserver_registered_watchers */
  kindOf?: (group: string, version: string, resource: string) => string | undefined;
}

export function requestMetrics(o: RequestMetricsOptions): ApiMiddleware {
  const m = o.metrics;
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const info = ctx.state.info;
    const labels = requestLabels(ctx.method, info, ctx.state.query, ctx.get('Content-Type'));
    const { dry_run: _dryRun, ...sizeLabels } = labels;
    const longRunning = isLongRunning(info);
    const inflightKind = isMutating(info) ? 'mutating' : 'readOnly';
    let watcherLabels: { group: string; version: string; kind: string } | undefined;
    if (info.isResourceRequest && info.verb === 'watch') {
      const kind = o.kindOf?.(info.group, info.version, info.resource);
      if (kind) watcherLabels = { group: info.group, version: info.version, kind };
    }

    // long-running requests are not in flight in kube's sense (they are exempt from the limits)
    if (longRunning) m.longRunning.inc(sizeLabels);
    else m.currentInflight.inc({ request_kind: inflightKind });
    if (watcherLabels) m.registeredWatchers.inc(watcherLabels);

    let recorded = false;
    const record = (): void => {
      if (recorded) return;
      recorded = true;
      if (longRunning) m.longRunning.dec(sizeLabels);
      else m.currentInflight.dec({ request_kind: inflightKind });
      if (watcherLabels) m.registeredWatchers.dec(watcherLabels);
      const res = ctx.res;
      m.requestTotal.inc({ ...labels, code: String(res.statusCode) });
      // only the timeout filter answers 504 here (kube counts its timeouts as terminations)
      if (res.statusCode === 504 && !longRunning) m.requestTerminations.inc({ ...sizeLabels, code: '504' });
      m.requestDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      if (labels.verb === 'GET' || labels.verb === 'LIST') {
        const size = responseSize(ctx);
        if (size !== undefined) m.responseSizes.observe(sizeLabels, size);
      }
      // the client went away (or the connection was cut) before the whole answer was sent
      if (!longRunning && !res.writableFinished) {
        const { verb, group, version, resource, subresource, scope } = labels;
        m.requestAborts.inc({ verb, group, version, resource, subresource, scope });
      }
    };
    // Node emits 'close' once for every response: sent, streamed to its end, or cut off
    ctx.res.once('close', record);
    await next();
  };
}

function responseSize(ctx: ApiContext): number | undefined {
  const header = ctx.res.getHeader('content-length');
  const n = Number(header);
  return header !== undefined && Number.isFinite(n) ? n : undefined;
}

/** GET /metrics: the Prometheus text format of the server's registry */
export async function serveMetrics(ctx: ApiContext, metrics: ApiServerMetrics): Promise<void> {
  const text = await metrics.text();
  ctx.status = 200;
  ctx.type = metrics.contentType;
  ctx.body = text;
}
