/** The per-request state the middleware chain fills in, in order, for the handlers after it. */
import type Koa from 'koa';
import type pino from 'pino';
import type { RequestInfo } from './request-info';

/** who made a request (kube's user.Info), as an authentication middleware sets it */
export interface UserInfo {
  name: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

export interface ApiState {
  /** kube's audit ID: the `Audit-ID` request header when given, else a fresh UUID */
  requestId: string;
  /** child of the root logger carrying the request id */
  log: pino.Logger;
  info: RequestInfo;
  query: URLSearchParams;
  /** the authenticated caller; unset until authentication exists (then requests are anonymous) */
  user?: UserInfo;
}

export type ApiContext = Koa.ParameterizedContext<ApiState>;
export type ApiMiddleware = Koa.Middleware<ApiState>;
