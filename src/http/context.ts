/** The per-request state the middleware chain fills in, in order, for the handlers after it. */
import type Koa from 'koa';
import type pino from 'pino';
import type { RequestInfo } from './request-info';

import type { UserInfo } from '../api/reviews/authorizer';

export type { UserInfo };

export interface ApiState {
  /** kube's audit ID: the `Audit-ID` request header when given, else a fresh UUID */
  requestId: string;
  /** child of the root logger carrying the request id */
  log: pino.Logger;
  info: RequestInfo;
  query: URLSearchParams;
  /** the caller, once authenticated (and impersonation applied); unset when the app runs without authentication */
  user?: UserInfo;
  /** the audiences the caller's credential was valid for (tokens with an audience) */
  audiences?: string[];
  /** a streamed answer sent as it comes (pods/log): response compression leaves it alone */
  uncompressed?: boolean;
}

export type ApiContext = Koa.ParameterizedContext<ApiState>;
export type ApiMiddleware = Koa.Middleware<ApiState>;
