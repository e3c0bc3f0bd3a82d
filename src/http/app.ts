/**
 * The API server's Koa app. The middleware order, outermost first:
 *
 *   request id -> request log -> metrics -> error Status -> request timeout -> authentication
 *     -> audit -> impersonation -> priority and fairness (or in-flight limits) -> authorization
 *     -> aggregated APIs -> /metrics, /debug/pprof -> routes
 *
 * request id      `Audit-Id` for every request
 * request log     per-request pino child, request info parsed once, one line when the request ends
 * metrics         every request counted and timed as kube does (apiserver_request_total, ...)
 * error Status    every thrown ApiError (and anything unexpected, as a 500) becomes a metav1 Status
 * timeout         504 after --request-timeout (watches exempt; they end at their own timeout)
 * CORS            Access-Control-* headers for --cors-allowed-origins; their preflights answered 204
 * throttle        long-running responses limited to --max-connection-bytes-per-sec
 * authentication  the caller (ctx.state.user), or 401 (kube's WithAuthentication; audited by kube's
 *                 failed-authentication audit when auditing is on)
 * audit           audit events for the request at each stage its policy keeps (kube's WithAudit)
 * impersonation   Impersonate-* headers replace the caller when the authorizer allows it, or 403
 * APF             classified by FlowSchemas, queued for a seat of its priority level, or 429 (watches exempt)
 * in-flight       without APF: 429 over --max-requests-inflight / --max-mutating-requests-inflight (watches exempt)
 * authorization   the authorizer's decision on the request, or 403 (kube's WithAuthorization)
 * aggregated APIs requests for group/versions extension servers serve are proxied to them
 * /metrics        the Prometheus text of the metrics registry; /debug/pprof/* with --profiling
 * routes          resources, discovery, /version, health
 */
import Koa from 'koa';
import { responseCompression } from './middleware/compression';
import type { FeatureGates } from '../options/feature-gates';
import type pino from 'pino';
import type { Registry } from '../api/registry/types';
import type { Scheme } from '../api/scheme';
import { defaultMaxRequestBodyBytes } from './body';
import type { ApiState } from './context';
import type { HealthCheck } from './health';
import type { Authorizer } from '../api/reviews/authorizer';
import type { Admission } from '../admission/types';
import type { ConnectBackends } from './handlers/connect';
import type { ChainAuthenticator } from '../auth/authenticator';
import { createAuditing } from './middleware/audit';
import type { AuditOptions } from './middleware/audit';
import { authentication } from './middleware/authentication';
import { authorization } from './middleware/authorization';
import { requestMetrics, serveMetrics } from './middleware/metrics';
import type { ApiServerMetrics } from '../metrics/apiserver-metrics';
import { debugHandlers } from './debug';
import { errorStatus } from './middleware/error-status';
import { cors } from './middleware/cors';
import { throttleLongRunning } from './middleware/throttle';
import { impersonation } from './middleware/impersonation';
import { inflightLimit } from './middleware/inflight-limit';
import { priorityAndFairness } from './middleware/priority-and-fairness';
import type { RequestFlowControl } from './middleware/priority-and-fairness';
import { requestId } from './middleware/request-id';
import { requestLog } from './middleware/request-log';
import { requestTimeout } from './middleware/request-timeout';
import { aggregatedProxy } from './aggregated-proxy';
import type { AggregatedApis } from './aggregated-proxy';
import { routes } from './routes';
import type { RoutesOptions } from './routes';
import type { VersionInfo } from './version';
import { defaultMaxWatchBufferedBytes } from './watch';

export type { HealthCheck } from './health';
export type { VersionInfo } from './version';

export interface ApiServerAppOptions {
  scheme: Scheme;
  registry: Registry;
  logger: pino.Logger;
  /** checks beyond ping, log and shutdown; the storage check is named `etcd` as kube names it */
  health: HealthCheck[];
  version: VersionInfo;
  /** the aggregation layer: proxied group/versions, their discovery and OpenAPI */
  aggregated?: AggregatedApis;
  /** who the caller is; without one requests carry no user (the app's own tests) */
  authenticator?: ChainAuthenticator;
  /** what the caller may do; without one every request is allowed (kube's AlwaysAllow) */
  authorizer?: Authorizer;
  /** the audit policy and back end; without them nothing is audited */
  audit?: AuditOptions;
  /** JSON documents at fixed non-resource paths (the service account issuer's discovery) */
  documents?: RoutesOptions['documents'];
  /** request metrics and GET /metrics; without it neither */
  metrics?: ApiServerMetrics;
  /** --profiling: serve /debug/pprof/ */
  profiling?: boolean;
  /** the admission chain, run with operation CONNECT before exec, attach, portforward and proxy are answered */
  admission?: Admission;
  /** what connect subresources (logs, exec, proxy) reach; unset = they answer 503 */
  connect?: ConnectBackends;
  /** API Priority and Fairness (--enable-priority-and-fairness); without it the plain in-flight limits apply */
  flowControl?: RequestFlowControl;
  /** --feature-gates; undefined = every gate at its default */
  featureGates?: FeatureGates;
  options?: {
    /** --min-request-timeout (seconds): watches without timeoutSeconds last [min, 2*min). Default 1800 */
    minRequestTimeoutSeconds?: number;
    /** --request-timeout (seconds) for non-long-running requests. Default 60 */
    requestTimeoutSeconds?: number;
    /** request bodies over this are a 413. Default 3 MiB */
    maxRequestBodyBytes?: number;
    /** --max-requests-inflight; 0 or undefined = no limit */
    maxRequestsInflight?: number;
    /** --max-mutating-requests-inflight; 0 or undefined = no limit */
    maxMutatingRequestsInflight?: number;
    /** socket bytes a watch may have waiting before it is closed as fallen behind. Default 16 MiB */
    maxWatchBufferedBytes?: number;
    /** --cors-allowed-origins (regular expressions); empty or undefined = no CORS */
    corsAllowedOrigins?: readonly string[];
    /** --max-connection-bytes-per-sec for long-running responses; 0 or undefined = no limit */
    maxConnectionBytesPerSec?: number;
    /** host:port of serverAddressByClientCIDRs (--external-hostname or the advertise address, and the port); undefined = the request's Host */
    externalAddress?: string;
  };
}

export interface ApiServerApp {
  app: Koa<ApiState>;
  /** mark /readyz failing (the `shutdown` check) and end every open watch */
  shutdown(): void;
}

export function createApiServerApp(opts: ApiServerAppOptions): ApiServerApp {
  const o = opts.options ?? {};
  let shuttingDown = false;
  const openWatches = new Set<() => void>();

  const app = new Koa<ApiState>();
  app.proxy = false;
  // errors are answered and logged by the error middleware; keep Koa from printing them again
  app.silent = true;

  app.use(requestId());
  app.use(requestLog(opts.logger));
  if (opts.metrics) {
    const kindOf = (g: string, v: string, r: string) => opts.scheme.byResource(g, v, r)?.kind;
    app.use(requestMetrics({ metrics: opts.metrics, kindOf }));
  }
  app.use(errorStatus());
  if (opts.featureGates?.enabled('APIResponseCompression') ?? true) app.use(responseCompression());
  app.use(requestTimeout(o.requestTimeoutSeconds ?? 60));
  if (o.corsAllowedOrigins?.length) app.use(cors(o.corsAllowedOrigins));
  if (o.maxConnectionBytesPerSec) app.use(throttleLongRunning(o.maxConnectionBytesPerSec));
  const auditing = opts.audit && createAuditing({ maxBodyBytes: o.maxRequestBodyBytes, ...opts.audit });
  if (auditing && opts.authenticator) app.use(auditing.failedAuthentication);
  if (opts.authenticator) app.use(authentication(opts.authenticator));
  if (auditing) app.use(auditing.audit);
  if (opts.authenticator && opts.authorizer) app.use(impersonation(opts.authorizer));
  if (opts.flowControl) app.use(priorityAndFairness(opts.flowControl));
  else app.use(inflightLimit({ maxRequestsInflight: o.maxRequestsInflight, maxMutatingRequestsInflight: o.maxMutatingRequestsInflight }));
  if (opts.authorizer) app.use(authorization(auditing ? auditing.recordDecisions(opts.authorizer) : opts.authorizer));
  const trackWatch = (close: () => void): (() => void) => {
    openWatches.add(close);
    return () => openWatches.delete(close);
  };
  if (opts.aggregated) app.use(aggregatedProxy(opts.aggregated, trackWatch));
  const metrics = opts.metrics;
  const debug = opts.profiling ? debugHandlers({ requestTimeoutSeconds: o.requestTimeoutSeconds }) : undefined;
  if (metrics || debug) {
    app.use(async (ctx, next) => {
      if (metrics && ctx.path === '/metrics' && (ctx.method === 'GET' || ctx.method === 'HEAD')) return serveMetrics(ctx, metrics);
      if (debug && (await debug.serve(ctx))) return;
      return next();
    });
  }
  app.use(
    routes({
      scheme: opts.scheme,
      version: opts.version,
      extensions: opts.aggregated,
      documents: opts.documents,
      externalAddress: o.externalAddress,
      health: { checks: opts.health, isShuttingDown: () => shuttingDown },
      deps: {
        registry: opts.registry,
        featureGates: opts.featureGates,
        minRequestTimeoutSeconds: o.minRequestTimeoutSeconds ?? 1800,
        maxRequestBodyBytes: o.maxRequestBodyBytes ?? defaultMaxRequestBodyBytes,
        maxWatchBufferedBytes: o.maxWatchBufferedBytes ?? defaultMaxWatchBufferedBytes,
        trackWatch,
        admission: opts.admission,
        connect: opts.connect,
      },
    }),
  );

  return {
    app,
    shutdown() {
      shuttingDown = true;
      for (const close of [...openWatches]) close();
    },
  };
}
