/**
 * kube's WithAudit and WithFailedAuthenticationAudit. The policy decides a level from the request
 * info and the authenticated caller (before impersonation); above None, events go to the back end
 * at each stage the policy keeps:
 *   RequestReceived   before the request is handled (blocking-strict: a lost event is a 500)
 *   ResponseStarted   long-running requests (watches), when the headers leave
 *   ResponseComplete  when the handler has finished (for a streamed list, when the body has been read)
 *   Panic             an unexpected error (what kube reports for a handler panic)
 * Bodies are captured on the side: the request's `data` events as the handler reads them, and the
 * response body the handler set (a streamed list is teed). Watches are never buffered.
 * A request refused with 401 never reaches WithAudit; the failed-authentication middleware writes
 * its one ResponseStarted event, as kube does.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { PassThrough, Readable } from 'node:stream';
import { isApiError } from '../../api/errors';
import type { Authorizer } from '../../api/reviews/authorizer';
import { microTimestamp, withoutManagedFields } from '../../audit/event';
import { evaluatePolicy } from '../../audit/policy';
import type { Policy, RuleDecision } from '../../audit/policy';
import { objectRef, policyAttributes } from '../../audit/request-attributes';
import { auditUser, levelAtLeast } from '../../audit/types';
import type { AuditBackend, AuditEvent, Level, ResponseStatus, Stage } from '../../audit/types';
import { mediaTypeOf } from '../body';
import { codecFor } from '../codecs';
import type { ApiContext, ApiMiddleware, UserInfo } from '../context';
import { isLongRunning } from '../request-info';

export interface AuditOptions {
  policy: Policy;
  backend: AuditBackend;
  /** request bodies over this are not recorded (the handler refuses them anyway). Default 3 MiB */
  maxBodyBytes?: number;
}

export interface Auditing {
  /** sits in front of authentication: audits the requests it refuses with 401 */
  failedAuthentication: ApiMiddleware;
  /** sits after authentication, before impersonation and authorization */
  audit: ApiMiddleware;
  /** the authorizer, telling the audit event the decision it made on the request */
  recordDecisions(authorizer: Authorizer): Authorizer;
}

interface InFlight {
  decision?: { allowed: boolean; reason?: string };
}

const auditVersion = 'audit.k8s.io/v1';

/** kube's SourceIPs: X-Forwarded-For, then X-Real-Ip, then the connection's peer */
function sourceIPs(ctx: ApiContext): string[] {
  const ips: string[] = [];
  const fwd = ctx.get('X-Forwarded-For');
  if (fwd) for (const ip of fwd.split(',')) if (ip.trim()) ips.push(ip.trim());
  const real = ctx.get('X-Real-Ip').trim();
  if (real && !ips.includes(real)) ips.push(real);
  let remote = ctx.req.socket.remoteAddress ?? '';
  if (remote.startsWith('::ffff:')) remote = remote.slice(7);
  if (remote && ips[ips.length - 1] !== remote) ips.push(remote);
  return ips;
}

function baseEvent(ctx: ApiContext, level: Level, user: UserInfo | undefined): AuditEvent {
  const now = microTimestamp();
  const ev: AuditEvent = {
    kind: 'Event',
    apiVersion: auditVersion,
    level,
    auditID: ctx.state.requestId,
    stage: 'RequestReceived',
    requestURI: ctx.originalUrl,
    verb: ctx.state.info.verb,
    user: auditUser(user),
    sourceIPs: sourceIPs(ctx),
    requestReceivedTimestamp: now,
    stageTimestamp: now,
  };
  const ua = ctx.get('User-Agent');
  if (ua) ev.userAgent = ua;
  const ref = objectRef(ctx.state.info);
  if (ref) ev.objectRef = ref;
  return ev;
}

/** a body as a JSON value, when its type can be decoded */
function decodeBody(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return undefined;
  const mt = mediaTypeOf(contentType) || 'application/json';
  try {
    if (mt === 'application/json' || mt.endsWith('+json')) return JSON.parse(body.toString('utf8'));
    const codec = codecFor(mt === 'application/apply-patch+yaml' ? 'application/yaml' : mt);
    return codec?.decode(body, {});
  } catch {
    return undefined;
  }
}

/** kube's getAuthMethods: which credentials a refused request carried */
function attemptedMethods(ctx: ApiContext): string {
  const methods: string[] = [];
  const auth = (ctx.get('Authorization') ?? '').trim();
  if (/^basic /i.test(auth)) methods.push('basic');
  const parts = auth.split(' ');
  if (parts.length > 1 && parts[0].toLowerCase() === 'bearer') methods.push('bearer');
  if ((ctx.state.query?.get('access_token') ?? '').trim()) methods.push('access_token');
  const socket = ctx.req.socket as { getPeerCertificate?: () => { raw?: Buffer } };
  if (socket.getPeerCertificate?.()?.raw) methods.push('x509');
  return methods.length ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

function sameUser(a: UserInfo | undefined, b: UserInfo | undefined): boolean {
  return a === b || (a?.name === b?.name && JSON.stringify(a?.groups) === JSON.stringify(b?.groups));
}

export function createAuditing(o: AuditOptions): Auditing {
  const { policy, backend } = o;
  const maxBody = o.maxBodyBytes ?? 3 * 1024 * 1024;
  const seen = new WeakSet<object>();
  const inFlight = new AsyncLocalStorage<InFlight>();

  const send = (ev: AuditEvent, rule: RuleDecision, stage: Stage): Promise<boolean> => {
    if (rule.omitStages.includes(stage)) return Promise.resolve(true);
    const out: AuditEvent = { ...ev, stage, stageTimestamp: microTimestamp() };
    if (rule.omitManagedFields) {
      if (out.requestObject !== undefined) out.requestObject = withoutManagedFields(out.requestObject);
      if (out.responseObject !== undefined) out.responseObject = withoutManagedFields(out.responseObject);
    }
    return backend.processEvents([out]);
  };

  const failedAuthentication: ApiMiddleware = async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (isApiError(err) && err.status.code === 401 && !seen.has(ctx)) {
        const rule = evaluatePolicy(policy, policyAttributes(ctx.state.info, undefined));
        if (rule.level !== 'None') {
          const ev = baseEvent(ctx, rule.level, undefined);
          ev.responseStatus = { metadata: {}, message: attemptedMethods(ctx), code: 401 };
          await send(ev, rule, 'ResponseStarted');
        }
      }
      throw err;
    }
  };

  const audit: ApiMiddleware = async (ctx, next) => {
    seen.add(ctx);
    const caller = ctx.state.user;
    const rule = evaluatePolicy(policy, policyAttributes(ctx.state.info, caller));
    if (rule.level === 'None') return next();
    const ev = baseEvent(ctx, rule.level, caller);

    if (!(await send(ev, rule, 'RequestReceived'))) {
      // kube's blocking-strict: the request is not served when its audit event was lost
      ctx.status = 500;
      ctx.type = 'text/plain';
      ctx.body = `Internal Server Error: ${JSON.stringify(ctx.path)}: failed to store audit event\n`;
      return;
    }

    // the request body, copied as the handler reads it (no change to how it flows); at Metadata
    // level it only names a created object, as kube's LogRequestObject does
    const chunks: Buffer[] = [];
    let bodyBytes = 0;
    const recordBody = levelAtLeast(rule.level, 'Request');
    if (recordBody || ctx.method === 'POST') {
      const req = ctx.req;
      const emit = req.emit;
      req.emit = function (this: typeof req, event: string | symbol, ...args: unknown[]): boolean {
        if (event === 'data' && bodyBytes <= maxBody) {
          const chunk = args[0] as Buffer;
          bodyBytes += chunk.length;
          if (bodyBytes <= maxBody) chunks.push(Buffer.from(chunk));
        }
        return emit.call(this, event, ...args);
      } as typeof req.emit;
    }

    const longRunning = isLongRunning(ctx.state.info);
    if (longRunning && !rule.omitStages.includes('ResponseStarted')) {
      const res = ctx.res;
      const writeHead = res.writeHead;
      let started = false;
      res.writeHead = function (this: typeof res, ...args: unknown[]) {
        if (!started) {
          started = true;
          const code = typeof args[0] === 'number' ? args[0] : res.statusCode;
          fill();
          void send({ ...ev, responseStatus: { metadata: {}, code } }, rule, 'ResponseStarted');
        }
        return (writeHead as (...a: unknown[]) => typeof res).apply(this, args);
      } as typeof res.writeHead;
    }

    const record: InFlight = {};
    /** what is known about the request and the caller so far */
    const fill = (): void => {
      const now = ctx.state.user;
      if (now && !sameUser(now, caller)) ev.impersonatedUser = auditUser(now);
      if (record.decision) {
        ev.annotations = {
          ...ev.annotations,
          'authorization.k8s.io/decision': record.decision.allowed ? 'allow' : 'forbid',
          'authorization.k8s.io/reason': record.decision.reason ?? '',
        };
      }
      if (chunks.length > 0 && bodyBytes <= maxBody) {
        const obj = decodeBody(Buffer.concat(chunks), ctx.get('Content-Type'));
        chunks.length = 0;
        if (obj !== undefined) {
          if (recordBody) ev.requestObject = obj;
          // kube fills a created object's name from the request
          const meta = (obj as { metadata?: { name?: unknown } }).metadata;
          if (ev.objectRef && !ev.objectRef.name && typeof meta?.name === 'string' && ctx.method === 'POST') ev.objectRef.name = meta.name;
        }
      }
    };
    const fromResponse = (value: unknown): void => {
      if (value === null || typeof value !== 'object') return;
      const obj = value as { kind?: unknown; metadata?: { uid?: unknown; resourceVersion?: unknown } };
      if (levelAtLeast(rule.level, 'RequestResponse')) ev.responseObject = value;
      // the uid and resourceVersion of the one object the request is about
      if (ev.objectRef && obj.kind !== 'Status' && !String(obj.kind ?? '').endsWith('List') && obj.metadata) {
        if (typeof obj.metadata.uid === 'string') ev.objectRef.uid = obj.metadata.uid;
        if (typeof obj.metadata.resourceVersion === 'string') ev.objectRef.resourceVersion = obj.metadata.resourceVersion;
      }
    };

    let failure: unknown;
    try {
      await inFlight.run(record, next);
    } catch (err) {
      failure = err;
    }
    fill();

    if (failure !== undefined) {
      let status: ResponseStatus;
      let stage: Stage = 'ResponseComplete';
      if (isApiError(failure)) {
        const s = failure.status;
        status = { metadata: {}, status: s.status, message: s.message, reason: s.reason, code: s.code };
        if (s.details) status.details = s.details;
        fromResponse(s);
      } else {
        stage = 'Panic';
        const message = failure instanceof Error ? failure.message : String(failure);
        status = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${message}`, reason: 'InternalError', code: 500 };
      }
      ev.responseStatus = status;
      await send(ev, rule, stage);
      throw failure;
    }

    const code = ctx.status;
    ev.responseStatus = { metadata: {}, code };
    const body = ctx.body as unknown;
    const wanted = levelAtLeast(rule.level, 'Metadata') && !longRunning;
    if (wanted && (typeof body === 'string' || Buffer.isBuffer(body))) {
      fromResponse(decodeBody(Buffer.isBuffer(body) ? body : Buffer.from(body), ctx.response.get('Content-Type') as string));
    } else if (wanted && body instanceof Readable && levelAtLeast(rule.level, 'RequestResponse')) {
      // a list streamed in chunks: tee it, and complete the event once the client has it all
      const copy: Buffer[] = [];
      const tee = new PassThrough();
      tee.on('data', (c: Buffer) => copy.push(c));
      let completed = false;
      const complete = (whole: boolean) => {
        if (completed) return;
        completed = true;
        // a client that left half way still gets its event, without the partial body
        if (whole) fromResponse(decodeBody(Buffer.concat(copy), ctx.response.get('Content-Type') as string));
        void send(ev, rule, 'ResponseComplete');
      };
      tee.on('end', () => complete(true));
      tee.on('close', () => complete(false));
      body.on('error', (err) => tee.destroy(err));
      const type = ctx.response.get('Content-Type');
      ctx.body = body.pipe(tee);
      if (type) ctx.set('Content-Type', type as string);
      return;
    }
    await send(ev, rule, 'ResponseComplete');
  };

  return {
    failedAuthentication,
    audit,
    recordDecisions(authorizer) {
      const wrapped = Object.create(authorizer) as Authorizer;
      wrapped.authorize = async (attrs) => {
        const decision = await authorizer.authorize(attrs);
        const record = inFlight.getStore();
        // the first decision is the authorization filter's; later ones (access reviews) are not
        if (record && !record.decision) record.decision = { allowed: decision.allowed, reason: decision.reason };
        return decision;
      };
      return wrapped;
    },
  };
}
