/** Building blocks of audit events: microsecond timestamps, kube's legacy text line, truncation. */
import type { AuditEvent, AuditUser } from './types';

/** now as kube's MicroTime: RFC 3339 with exactly six fractional digits, UTC */
export function microTimestamp(now: number = performance.timeOrigin + performance.now()): string {
  const ms = Math.floor(now);
  const micros = Math.floor((now - ms) * 1000);
  const iso = new Date(ms).toISOString(); // 2006-01-02T15:04:05.000Z
  return `${iso.slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}

/** Go's RFC3339Nano: trailing fractional zeros (and a bare dot) dropped */
function rfc3339Nano(micro: string): string {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(micro);
  if (!m) return micro;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  return `${m[1]}${frac ? '.' + frac : ''}Z`;
}

/** Go's %q for the ASCII text audit lines carry */
function q(s: string): string {
  return JSON.stringify(s);
}

function quotedList(list: string[]): string {
  return list.map(q).join(',');
}

/** kube's legacy audit line (EventString) */
export function legacyLine(ev: AuditEvent): string {
  const user: AuditUser = ev.user ?? {};
  let username = '<none>';
  let groups = '<none>';
  if (user.username) {
    username = user.username;
    if (user.groups?.length) groups = quotedList(user.groups);
  }
  let as = '<self>';
  let asGroups = '<lookup>';
  if (ev.impersonatedUser) {
    as = ev.impersonatedUser.username ?? '';
    if (ev.impersonatedUser.groups) asGroups = quotedList(ev.impersonatedUser.groups);
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code ?? 0) : '<deferred>';
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  return (
    `${rfc3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${q(ev.auditID)} stage=${q(ev.stage)} ip=${q(ip)} method=${q(ev.verb)} ` +
    `user=${q(username)} groups=${q(groups)} as=${q(as)} asgroups=${q(asGroups)} user-agent=${q(ev.userAgent ?? '')} ` +
    `namespace=${q(namespace)} uri=${q(ev.requestURI)} response="${response}"`
  );
}

/** the event in the group/version --audit-*-version names (the fields are the same in v1 and v1beta1) */
export function versioned(ev: AuditEvent, apiVersion: string): AuditEvent {
  return ev.apiVersion === apiVersion ? ev : { ...ev, apiVersion };
}

export const truncatedAnnotation = 'audit.k8s.io/truncated';

/**
 * kube's truncating back end for one event: over `maxEventSize` bytes, the request and response
 * bodies go (and the event says so); still over, the event is dropped (undefined).
 */
export function truncateEvent(ev: AuditEvent, maxEventSize: number): AuditEvent | undefined {
  if (Buffer.byteLength(JSON.stringify(ev)) <= maxEventSize) return ev;
  const cut: AuditEvent = { ...ev, annotations: { ...ev.annotations, [truncatedAnnotation]: 'true' } };
  delete cut.requestObject;
  delete cut.responseObject;
  return Buffer.byteLength(JSON.stringify(cut)) <= maxEventSize ? cut : undefined;
}

/** split events into batches of at most `maxBatchBytes` serialized bytes (an event alone may exceed none after truncation) */
export function splitBatches(events: AuditEvent[], maxBatchBytes: number): AuditEvent[][] {
  const out: AuditEvent[][] = [];
  let current: AuditEvent[] = [];
  let size = 0;
  for (const ev of events) {
    const n = Buffer.byteLength(JSON.stringify(ev));
    if (current.length > 0 && size + n > maxBatchBytes) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(ev);
    size += n;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** a copy of an object (or each item of a list) without metadata.managedFields (omitManagedFields) */
export function withoutManagedFields(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const obj = value as Record<string, unknown>;
  let out = obj;
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object' && 'managedFields' in meta) {
    const { managedFields: _dropped, ...rest } = meta;
    out = { ...obj, metadata: rest };
  }
  if (Array.isArray(obj.items)) out = { ...out, items: obj.items.map(withoutManagedFields) };
  return out;
}
