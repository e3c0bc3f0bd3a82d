/** The audit.k8s.io/v1 Event and the names it uses (kube's k8s.io/apiserver/pkg/apis/audit). */
import type { UserInfo } from '../api/reviews/authorizer';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const levels: readonly Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const stages: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/** true when `level` records at least as much as `than` */
export function levelAtLeast(level: Level, than: Level): boolean {
  return levels.indexOf(level) >= levels.indexOf(than);
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code?: number;
}

export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** kube's Event, fields in its order (the JSON lines follow it) */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** the audit form of a caller (authentication.k8s.io UserInfo) */
export function auditUser(user: UserInfo | undefined): AuditUser {
  if (!user) return {};
  const out: AuditUser = { username: user.name };
  if (user.uid) out.uid = user.uid;
  if (user.groups?.length) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) out.extra = { ...user.extra };
  return out;
}

/**
 * Where events go. `processEvents` resolves true once the events are accepted (written, or queued in
 * batch mode); false when they were lost, which only blocking-strict turns into a failed request.
 */
export interface AuditBackend {
  processEvents(events: AuditEvent[]): Promise<boolean>;
  /** write what is queued and release files and connections */
  shutdown(): Promise<void>;
}
