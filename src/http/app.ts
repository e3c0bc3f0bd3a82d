/**
 * The API server's Koa app. The middleware order, outermost first:
 *
 *   request id -> request log -> error Status -> request timeout -> authentication
 *     -> priority and fairness (or in-flight limits) -> authorization -> aggregated APIs -> routes
 *
 * request id      `Audit-Id` for every request
 * request log     per-request pino child, request info parsed once, one line when the request ends
 * error Status    every thrown ApiError (and anything unexpected, as a 500) becomes a metav1 Status
 * timeout         504 after --request-timeout (watches exempt; they end at their own timeout)
 * authentication  the caller (ctx.state.user), or 401 (kube's WithAuthentication)
 * APF             classified by FlowSchemas, queued for a seat of its priority level, or 429 (watches exempt)
 * in-flight       without APF: 429 over --max-requests-inflight / --max-mutating-requests-inflight (watches exempt)
 * authorization   the authorizer's decision on the request, or 403 (kube's WithAuthorization)
 * aggregated APIs requests for group/versions extension servers serve are proxied to them
 * routes          resources, discovery, /version, health
 */
import Koa from 'koa';
import type pino from 'pino';
import type { Registry } from '../api/registry/types';
import type { Scheme } from '../api/scheme';
import { defaultMaxRequestBodyBytes } from './body';
import type { ApiState } from './context';
import type { HealthCheck } from './health';
import type { Authorizer } from '../api/reviews/authorizer';
import type { ChainAuthenticator } from '../auth/authenticator';
import { authentication } from './middleware/authentication';
import { authorization } from './middleware/authorization';
import { errorStatus } from './middleware/error-status';
import { inflightLimit } from './middleware/inflight-limit';
import { priorityAndFairness } from './middleware/priority-and-fairness';
import type { RequestFlowControl } from './middleware/priority-and-fairness';
import { requestId } from './middleware/request-id';
import { requestLog } from './middleware/request-log';
import { requestTimeout } from './middleware/request-timeout';
import { aggregatedProxy } from './aggregated-proxy';
import type { AggregatedApis } from './aggregated-proxy';
import { routes } from './routes';
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
  /** API Priority and Fairness (--enable-priority-and-fairness); without it the plain in-flight limits apply */
  flowControl?: RequestFlowControl;
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
  app.use(errorStatus());
  app.use(requestTimeout(o.requestTimeoutSeconds ?? 60));
  if (opts.authenticator) app.use(authentication(opts.authenticator));
  if (opts.flowControl) app.use(priorityAndFairness(opts.flowControl));
  else app.use(inflightLimit({ maxRequestsInflight: o.maxRequestsInflight, maxMutatingRequestsInflight: o.maxMutatingRequestsInflight }));
  if (opts.authorizer) app.use(authorization(opts.authorizer));
  const trackWatch = (close: () => void): (() => void) => {
    openWatches.add(close);
    return () => openWatches.delete(close);
  };
  if (opts.aggregated) app.use(aggregatedProxy(opts.aggregated, trackWatch));
  app.use(
    routes({
      scheme: opts.scheme,
      version: opts.version,
      extensions: opts.aggregated,
      health: { checks: opts.health, isShuttingDown: () => shuttingDown },
      deps: {
        registry: opts.registry,
        minRequestTimeoutSeconds: o.minRequestTimeoutSeconds ?? 1800,
        maxRequestBodyBytes: o.maxRequestBodyBytes ?? defaultMaxRequestBodyBytes,
        maxWatchBufferedBytes: o.maxWatchBufferedBytes ?? defaultMaxWatchBufferedBytes,
        trackWatch,
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
