/**
 * Events about objects, as a component records them (client-go's EventRecorder with its
 * correlator, simplified): a core/v1 Event in the object's namespace, named
 * `<object name>.<hex nanoseconds>`; the same event again (same object, type, reason and message)
 * within ten minutes increments `count` and `lastTimestamp` of the first instead of creating another.
 * Recording never blocks or fails the caller: events are sent in the background, one at a time,
 * and dropped (with a log line) when the server refuses them.
 */
import type { Logger } from 'pino';
import { isNotFound } from './errors';
import type { RestClient } from './rest-client';
import type { KubeObject, ResourceRef } from './types';

const EVENTS: ResourceRef = { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true };
const AGGREGATION_WINDOW_MS = 10 * 60_000;
const MAX_REMEMBERED = 4096;
const MAX_PENDING = 1000;

export type EventType = 'Normal' | 'Warning';

export interface EventSource {
  component: string;
  host?: string;
}

interface Remembered {
  namespace: string;
  name: string;
  count: number;
  firstTimestamp: string;
  lastSeen: number;
}

export class EventRecorder {
  readonly #client: RestClient;
  readonly #source: EventSource;
  readonly #logger?: Logger;
  readonly #seen = new Map<string, Remembered>();
  readonly #pending: (() => Promise<void>)[] = [];
  #sending = false;
  #idle: (() => void)[] = [];

  constructor(client: RestClient, source: EventSource, logger?: Logger) {
    this.#client = client;
    this.#source = source;
    this.#logger = logger;
  }

  /** record an event about `obj` (kube's recorder.Eventf) */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace || 'default';
    const involvedObject = {
      kind: obj.kind,
      namespace: meta.namespace,
      name: meta.name,
      uid: meta.uid,
      apiVersion: obj.apiVersion,
      resourceVersion: meta.resourceVersion,
    };
    const key = JSON.stringify([this.#source.component, this.#source.host, involvedObject.kind, namespace, meta.name, meta.uid, type, reason, message]);
    const now = Date.now();
    const stamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const seen = this.#seen.get(key);
    if (seen && now - seen.lastSeen < AGGREGATION_WINDOW_MS) {
      seen.count += 1;
      seen.lastSeen = now;
      const count = seen.count;
      this.#enqueue(async () => {
        try {
          await this.#client.patch(EVENTS, seen.namespace, seen.name, 'strategic', { count, lastTimestamp: stamp });
        } catch (err) {
          if (!isNotFound(err)) throw err;
          // the first one expired (--event-ttl): start again
          this.#seen.delete(key);
          this.event(obj, type, reason, message);
        }
      });
      return;
    }
    // remembered before it is sent, so a repeat recorded meanwhile counts instead of duplicating
    const name = `${meta.name ?? 'unknown'}.${(BigInt(now) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000))).toString(16)}`;
    if (this.#seen.size >= MAX_REMEMBERED) this.#seen.delete(this.#seen.keys().next().value!);
    this.#seen.set(key, { namespace, name, count: 1, firstTimestamp: stamp, lastSeen: now });
    this.#enqueue(async () => {
      try {
        await this.#client.create(EVENTS, namespace, {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name, namespace },
          involvedObject,
          reason,
          message,
          source: this.#source,
          firstTimestamp: stamp,
          lastTimestamp: stamp,
          count: 1,
          type,
          reportingComponent: this.#source.component,
          reportingInstance: this.#source.host ?? '',
        });
      } catch (err) {
        this.#seen.delete(key);
        throw err;
      }
    });
  }

  /** resolves when every recorded event has been sent (or dropped) */
  flush(): Promise<void> {
    if (!this.#sending && this.#pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #enqueue(send: () => Promise<void>): void {
    if (this.#pending.length >= MAX_PENDING) {
      this.#logger?.info('event queue full: dropping an event');
      return;
    }
    this.#pending.push(send);
    if (!this.#sending) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#sending = true;
    while (this.#pending.length) {
      const send = this.#pending.shift()!;
      try {
        await send();
      } catch (err) {
        this.#logger?.info({ err: (err as Error).message }, 'could not record an event');
      }
    }
    this.#sending = false;
    for (const w of this.#idle.splice(0)) w();
  }
}
