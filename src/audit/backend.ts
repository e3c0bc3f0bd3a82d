/**
 * The modes every audit back end shares (kube's buffered, blocking and truncating wrappers) over a
 * sink that writes a list of events or throws:
 * - blocking: the request waits for the write; a failure is logged and the request goes on
 * - blocking-strict: as blocking, but the failure is reported (a lost RequestReceived event fails
 *   the request)
 * - batch: events are queued (up to the buffer size; more are dropped and logged) and written in
 *   batches of up to batch-max-size, at the latest after batch-max-wait, throttled by a token
 *   bucket of batch-throttle-qps and -burst
 * Truncation, when enabled, trims oversized events and splits oversized batches before the sink.
 */
import type pino from 'pino';
import { splitBatches, truncateEvent, versioned } from './event';
import type { AuditBackend, AuditEvent } from './types';

export interface AuditSink {
  /** write the events; throw when they could not be written */
  write(events: AuditEvent[]): Promise<void>;
  close(): Promise<void>;
}

export type AuditMode = 'batch' | 'blocking' | 'blocking-strict';

export interface BackendSettings {
  mode: AuditMode;
  bufferSize: number;
  maxBatchSize: number;
  /** ms an unfilled batch waits; 0 = written on the next tick (kube's time.After(0)) */
  maxBatchWaitMs: number;
  throttleEnable: boolean;
  throttleQps: number;
  throttleBurst: number;
  truncateEnabled: boolean;
  truncateMaxBatchSize: number;
  truncateMaxEventSize: number;
  /** audit.k8s.io/v1 or v1beta1 */
  version: string;
}

export interface CreateBackendOptions {
  /** `log` or `webhook`, for log lines */
  name: string;
  sink: AuditSink;
  settings: BackendSettings;
  logger: pino.Logger;
}

/** a token bucket: `take` resolves when a token is free */
class Throttle {
  #tokens: number;
  #last = Date.now();
  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {
    this.#tokens = burst;
  }
  async take(): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) / 1000) * this.qps);
      this.#last = now;
      if (this.#tokens >= 1) {
        this.#tokens -= 1;
        return;
      }
      await new Promise((r) => setTimeout(r, Math.ceil(((1 - this.#tokens) / this.qps) * 1000)));
    }
  }
}

export function createBackend(o: CreateBackendOptions): AuditBackend {
  const s = o.settings;
  const log = o.logger.child({ component: `audit-${o.name}` });

  /** truncation and version, then the sink, batch by batch */
  const write = async (events: AuditEvent[]): Promise<void> => {
    let out = events.map((e) => versioned(e, s.version));
    let batches = [out];
    if (s.truncateEnabled) {
      out = out.map((e) => truncateEvent(e, s.truncateMaxEventSize)).filter((e): e is AuditEvent => e !== undefined);
      if (out.length < events.length) log.error({ dropped: events.length - out.length }, 'Audit events larger than --audit-*-truncate-max-event-size were dropped');
      batches = splitBatches(out, s.truncateMaxBatchSize);
    }
    for (const b of batches) if (b.length > 0) await o.sink.write(b);
  };

  if (s.mode !== 'batch') {
    let closed = false;
    return {
      async processEvents(events) {
        if (closed) return false;
        try {
          await write(events);
          return true;
        } catch (err) {
          log.error({ err: (err as Error).message }, 'Error in audit plugin affects the request');
          return s.mode !== 'blocking-strict';
        }
      },
      async shutdown() {
        closed = true;
        await o.sink.close();
      },
    };
  }

  const queue: AuditEvent[] = [];
  const throttle = s.throttleEnable && s.throttleQps > 0 ? new Throttle(s.throttleQps, Math.max(1, s.throttleBurst)) : undefined;
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<void> = Promise.resolve();
  let stopped = false;

  const sendBatch = (batch: AuditEvent[]): void => {
    sending = sending.then(async () => {
      await throttle?.take();
      try {
        await write(batch);
      } catch (err) {
        log.error({ err: (err as Error).message, events: batch.length }, 'Error sending a batch of audit events');
      }
    });
  };
  const flush = (all: boolean): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (queue.length >= s.maxBatchSize || (all && queue.length > 0)) sendBatch(queue.splice(0, s.maxBatchSize));
    if (queue.length > 0) timer = setTimeout(() => flush(true), s.maxBatchWaitMs);
  };

  return {
    async processEvents(events) {
      // kube's buffered back end never fails a request: what does not fit is dropped and logged
      if (stopped) return true;
      for (const ev of events) {
        if (queue.length >= s.bufferSize) {
          log.error({ auditID: ev.auditID }, 'audit buffer queue blocked: event dropped');
          continue;
        }
        queue.push(ev);
      }
      if (queue.length >= s.maxBatchSize) flush(false);
      else if (!timer) timer = setTimeout(() => flush(true), s.maxBatchWaitMs);
      return true;
    },
    async shutdown() {
      stopped = true;
      flush(true);
      await sending;
      await o.sink.close();
    },
  };
}

/** several back ends (log and webhook) as one; an event counts as processed when all took it */
export function unionBackend(backends: AuditBackend[]): AuditBackend {
  if (backends.length === 1) return backends[0];
  return {
    async processEvents(events) {
      const results = await Promise.all(backends.map((b) => b.processEvents(events)));
      return results.every(Boolean);
    },
    async shutdown() {
      await Promise.all(backends.map((b) => b.shutdown()));
    },
  };
}
