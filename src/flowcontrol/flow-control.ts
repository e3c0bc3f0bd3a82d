/**
 * The APF configuration, digested (kube 1.20's configController): FlowSchemas in matching order,
 * priority levels with their seats and queue sets. `update` takes the whole configuration whenever
 * it changes; queue sets survive changes, so waiting and executing requests keep their places.
 * The mandatory `exempt` and `catch-all` objects are imagined from kube's definitions while they are
 * missing, as kube does, so every request has somewhere to go.
 */
import type { KubeObject } from '../api/kind';
import { mandatoryFlowSchemas, mandatoryPriorityLevels } from '../api/kinds/flowcontrol/flowcontrol-bootstrap-objects';
import type { UserInfo } from '../api/reviews/authorizer';
import type { RequestInfo } from '../http/request-info';
import type { FlowSchemaSpec } from './matching';
import { flowDistinguisher, matchesFlowSchema } from './matching';
import { QueueSet } from './queue-set';
import type { QueueSetConfig, Seat } from './queue-set';
import { concurrencyLimits } from './seats';
import { hashFlow } from './shuffle-sharding';
import { boundedMemo } from '../util/memo';

export interface FlowControlOptions {
  /** --max-requests-inflight + --max-mutating-requests-inflight */
  serverConcurrencyLimit: number;
  /** how long a request may wait in a queue (kube: a quarter of --request-timeout) */
  requestWaitLimitMs: number;
  /** milliseconds; for tests */
  now?: () => number;
}

export interface Classification {
  flowSchema: { name: string; uid?: string };
  priorityLevel: { name: string; uid?: string };
  /** the level is Exempt: the request is never queued */
  exempt: boolean;
  flowHash: bigint;
}

interface Schema {
  name: string;
  uid?: string;
  precedence: number;
  level: string;
  spec: FlowSchemaSpec;
}

interface Level {
  name: string;
  uid?: string;
  exempt: boolean;
  shares: number;
  queuing: Omit<QueueSetConfig, 'concurrencyLimit'>;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

function toLevel(o: KubeObject): Level {
  const spec = obj(o.spec);
  const limited = obj(spec.limited);
  const limitResponse = obj(limited.limitResponse);
  const queuing = obj(limitResponse.queuing);
  const queues = limitResponse.type === 'Queue' ? num(queuing.queues, 64) : 0;
  return {
    name: String(o.metadata?.name ?? ''),
    uid: o.metadata?.uid,
    exempt: spec.type === 'Exempt',
    // v1 and v1beta3 say nominal, older versions assured; both mean the same share
    shares: num(limited.nominalConcurrencyShares ?? limited.assuredConcurrencyShares, 30),
    queuing: { queues, handSize: num(queuing.handSize, 8), queueLengthLimit: num(queuing.queueLengthLimit, 50) },
  };
}

function toSchema(o: KubeObject): Schema {
  const spec = obj(o.spec) as FlowSchemaSpec;
  return {
    name: String(o.metadata?.name ?? ''),
    uid: o.metadata?.uid,
    precedence: num(spec.matchingPrecedence, 1000),
    level: spec.priorityLevelConfiguration?.name ?? '',
    spec,
  };
}

export class FlowControl {
  readonly #opts: FlowControlOptions;
  #schemas: Schema[] = [];
  #levels = new Map<string, Level>();
  readonly #queueSets = new Map<string, QueueSet>();
  /** hashFlow, remembered: a flow (schema, NUL, user or namespace) sends many requests */
  readonly #flowHash = boundedMemo(4096, (flow: string): bigint => {
    const at = flow.indexOf('\0');
    return hashFlow(flow.slice(0, at), flow.slice(at + 1));
  });

  constructor(opts: FlowControlOptions) {
    this.#opts = opts;
    this.update([], []);
  }

  /** replace the configuration: every FlowSchema and PriorityLevelConfiguration there is now */
  update(flowSchemas: readonly KubeObject[], priorityLevels: readonly KubeObject[]): void {
    const levels = new Map(priorityLevels.map((o) => [String(o.metadata?.name ?? ''), toLevel(o)]));
    for (const o of mandatoryPriorityLevels()) {
      const name = String(o.metadata?.name);
      if (!levels.has(name)) levels.set(name, toLevel(o));
    }
    const schemas = flowSchemas.map(toSchema);
    for (const o of mandatoryFlowSchemas()) if (!schemas.some((s) => s.name === o.metadata?.name)) schemas.push(toSchema(o));
    // lower precedence first, then by name; schemas naming a missing level (dangling) are skipped
    this.#schemas = schemas
      .filter((s) => levels.has(s.level))
      .sort((a, b) => a.precedence - b.precedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#levels = levels;

    const limited = [...levels.values()].filter((l) => !l.exempt);
    const limits = concurrencyLimits(this.#opts.serverConcurrencyLimit, limited);
    for (const l of limited) {
      const config = { ...l.queuing, concurrencyLimit: limits.get(l.name) ?? 0 };
      const qs = this.#queueSets.get(l.name);
      if (qs) qs.setConfig(config);
      else this.#queueSets.set(l.name, new QueueSet({ config, now: this.#opts.now }));
    }
    // a level deleted (or made Exempt) keeps its queue set only while requests still use it
    const current = new Set(limited.map((l) => l.name));
    for (const [name, qs] of this.#queueSets) {
      if (!current.has(name) && qs.executing === 0 && qs.waiting === 0) this.#queueSets.delete(name);
    }
  }

  /** the priority levels that have a queue set now (for tests) */
  get queuedLevels(): string[] {
    return [...this.#queueSets.keys()];
  }

  /** the seats each Limited level has now (for tests and logs) */
  concurrencyLimit(level: string): number | undefined {
    const l = this.#levels.get(level);
    return l && !l.exempt ? this.#queueSets.get(level)?.config.concurrencyLimit : undefined;
  }

  /** the first FlowSchema that matches, by precedence; catch-all when none does */
  classify(user: UserInfo, info: RequestInfo): Classification {
    const schema = this.#schemas.find((s) => matchesFlowSchema(s.spec, user, info)) ?? this.#schemas.find((s) => s.name === 'catch-all')!;
    const level = this.#levels.get(schema.level)!;
    return {
      flowSchema: { name: schema.name, uid: schema.uid },
      priorityLevel: { name: level.name, uid: level.uid },
      exempt: level.exempt,
      // (a schema's name, a DNS subdomain, holds no NUL)
      flowHash: this.#flowHash(`${schema.name}\0${flowDistinguisher(schema.spec, user, info)}`),
    };
  }

  /** a seat at once when one is free and nobody waits (exempt levels: always); undefined: use admit */
  tryAdmit(c: Classification): Seat | undefined {
    const qs = c.exempt ? undefined : this.#queueSets.get(c.priorityLevel.name);
    if (!qs) return { release: () => undefined };
    return qs.tryAcquire(c.flowHash);
  }

  /**
   * A seat for a classified request: at once for exempt levels, else from the level's queue set
   * (rejects with RequestRejected). Release the seat when the request is done.
   */
  admit(c: Classification, signal?: AbortSignal): Promise<Seat> {
    const qs = c.exempt ? undefined : this.#queueSets.get(c.priorityLevel.name);
    if (!qs) return Promise.resolve({ release: () => undefined });
    return qs.acquire(c.flowHash, this.#opts.requestWaitLimitMs, signal);
  }
}
