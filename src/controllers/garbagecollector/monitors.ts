/**
 * The collector's monitors (kube's GraphBuilder.syncMonitors): one informer per resource that
 * serves list, watch and delete, started and stopped as discovery changes, each feeding the graph.
 * They are the collector's own informers, not the manager's shared ones, so that a monitor can stop
 * when its resource (a custom resource) stops being served.
 */
import type { Logger } from 'pino';
import { resourceId, withVerbs, type DiscoveredResource } from '../../client/discovery';
import { SharedInformer } from '../../client/informer';
import type { RestClient } from '../../client/rest-client';
import { sleep } from '../../client/sleep';
import type { DependencyGraph } from './graph';

const SYNC_WAIT_MS = 30_000;

/** kube's ignored resources: events are never owners or dependents worth tracking */
const IGNORED = new Set(['/events', 'events.k8s.io/events']);

/** the resources the collector watches: list, watch and delete, minus the ignored ones */
export function deletableResources(resources: readonly DiscoveredResource[]): DiscoveredResource[] {
  return withVerbs(resources, 'list', 'watch', 'delete').filter((r) => !IGNORED.has(`${r.group}/${r.resource}`));
}

interface Monitor {
  informer: SharedInformer;
  abort: AbortController;
  run: Promise<void>;
}

export class Monitors {
  readonly #client: RestClient;
  readonly #graph: DependencyGraph;
  readonly #logger: Logger;
  readonly #monitors = new Map<string, Monitor>();

  /** every monitor stops when `signal` aborts */
  constructor(o: { client: RestClient; graph: DependencyGraph; logger: Logger; signal: AbortSignal }) {
    this.#client = o.client;
    this.#graph = o.graph;
    this.#logger = o.logger;
    o.signal.addEventListener('abort', () => {
      for (const m of this.#monitors.values()) m.abort.abort();
    }, { once: true });
  }

  /**
   * watch exactly `resources` from now on, except that monitors of group/versions discovery could
   * not read (`unreadable`, as `group/version`) are kept, as kube does; resolves when the new
   * monitors have listed once
   */
  async sync(resources: readonly DiscoveredResource[], signal: AbortSignal, unreadable: ReadonlySet<string> = new Set()): Promise<void> {
    const wanted = new Map(resources.map((r) => [resourceId(r), r]));
    for (const [id, m] of this.#monitors) {
      const { group, version } = m.informer.ref;
      if (wanted.has(id) || unreadable.has(group ? `${group}/${version}` : version)) continue;
      m.abort.abort();
      this.#monitors.delete(id);
    }
    const started: SharedInformer[] = [];
    for (const [id, r] of wanted) {
      if (this.#monitors.has(id)) continue;
      const informer = new SharedInformer(this.#client, r, { logger: this.#logger });
      informer.addEventHandler({
        add: (obj) => this.#graph.observe(obj),
        update: (_old, obj) => this.#graph.observe(obj),
        delete: (obj) => this.#graph.forget(obj),
      }, 0);
      const abort = new AbortController();
      if (signal.aborted) abort.abort();
      const run = informer.run(abort.signal);
      this.#monitors.set(id, { informer, abort, run });
      started.push(informer);
    }
    if (started.length) this.#logger.info({ resources: [...wanted.keys()].length, added: started.length }, 'garbage collector monitors synced');
    // kube waits a bounded time: a resource whose list keeps failing must not stall the collector
    await Promise.race([Promise.all(started.map((i) => i.waitForSync(signal))), sleep(SYNC_WAIT_MS, signal)]);
  }

  /** resolves when every monitor has stopped */
  async stopped(): Promise<void> {
    await Promise.all([...this.#monitors.values()].map((m) => m.run));
  }
}
