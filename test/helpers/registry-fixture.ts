/**
 * A registry over a fresh store for one test: the built-in kinds as served, the real schema
 * definitions, a settable clock.
 * `forEachStore` runs a test body against the in-memory store and against SQLite.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '../../src/storage/store';
import { Scheme } from '../../src/api/scheme';
import type { KindDefinition, KubeObject } from '../../src/api/kind';
import { builtinKinds } from '../../src/api/kinds';
import { definitions } from '../../src/schema';
import { createRegistry } from '../../src/api/registry';
import type { RegistryOptions, RegistryWithLifecycle } from '../../src/api/registry';
import type { ApiWatchEvent, Target, WatchSink } from '../../src/api/registry/types';
import { MemoryStore } from './memory-store';
import { openStore } from '../../src/storage/open';

export type StoreKind = 'memory' | 'sqlite';

export interface Fixture {
  store: Store;
  registry: RegistryWithLifecycle;
  scheme: Scheme;
  kind(resource: string, group?: string, version?: string): KindDefinition;
  target(resource: string, namespace?: string, name?: string): Target;
  /** the clock the registry reads; tests may move it */
  clock: { now: Date };
  close(): Promise<void>;
}

export async function openTestStore(kind: StoreKind): Promise<{ store: Store; cleanup(): Promise<void> }> {
  if (kind === 'memory') {
    const store = new MemoryStore();
    return { store, cleanup: () => store.close() };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-registry-'));
  // loaded lazily so memory-only runs do not need the native module
  const store = await openStore(`sqlite://${path.join(dir, 'state.db')}`, { synchronous: 'NORMAL' });
  return {
    store,
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function makeFixture(storeKind: StoreKind = 'memory', opts: Partial<RegistryOptions> & { bootstrap?: boolean } = {}): Promise<Fixture> {
  const { store, cleanup } = await openTestStore(storeKind);
  const kinds = builtinKinds();
  const scheme = new Scheme(kinds);
  const clock = { now: new Date('2024-05-01T10:00:00.000Z') };
  let uid = 0;
  const registry = createRegistry({
    store,
    scheme,
    definitions,
    clock: () => clock.now,
    newUid: () => `00000000-0000-4000-8000-${String(++uid).padStart(12, '0')}`,
    freshnessWaitMs: 200,
    bookmarkIntervalMs: 50,
    namespaceRetryMs: 20,
    ...opts,
  });
  if (opts.bootstrap !== false) await registry.bootstrap();
  const kind = (resource: string, group = resource === 'deployments' || resource === 'daemonsets' ? 'apps' : resource === 'cronjobs' ? 'batch' : '', version = 'v1'): KindDefinition => {
    const k = scheme.byResource(group, version, resource);
    if (!k) throw new Error(`no kind ${group}/${version}/${resource}`);
    return k;
  };
  return {
    store,
    registry,
    scheme,
    kind,
    target: (resource, namespace, name) => ({ kind: kind(resource), namespace, name }),
    clock,
    close: async () => {
      await registry.close();
      await registry.idle().catch(() => undefined);
      await cleanup();
    },
  };
}

/** the store kinds every registry test runs against (BALLAST_TEST_STORES=memory limits it) */
export function storeKinds(): StoreKind[] {
  const env = process.env.BALLAST_TEST_STORES;
  if (env) return env.split(',').map((s) => s.trim()) as StoreKind[];
  return ['memory', 'sqlite'];
}

// ---- objects ---------------------------------------------------------------------------------

export function deployment(name: string, namespace = 'default', extra: { labels?: Record<string, string>; replicas?: number } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: {
      replicas: extra.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } },
    },
  };
}

export function configMap(name: string, namespace = 'default', labels?: Record<string, string>, data: Record<string, string> = { k: 'v' }): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels ? { labels } : {}) }, data };
}

export function pod(name: string, namespace = 'default', nodeName?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...(nodeName ? { nodeName } : {}) },
  };
}

export function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

export const write = { dryRun: false };
export const dryRun = { dryRun: true };

// ---- watch sink ------------------------------------------------------------------------------

export class CollectingSink implements WatchSink {
  readonly events: ApiWatchEvent[] = [];
  ended = false;
  #open = true;
  #waiters: Array<() => void> = [];

  send(event: ApiWatchEvent): boolean {
    this.events.push(event);
    this.#wake();
    return this.#open;
  }

  end(): void {
    this.ended = true;
    this.#wake();
  }

  /** stop accepting (the next send returns false) */
  close(): void {
    this.#open = false;
  }

  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }

  /** wait until pred holds over the events (or the stream ended), failing after timeoutMs */
  async waitFor(pred: (events: ApiWatchEvent[]) => boolean, timeoutMs = 3000): Promise<ApiWatchEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this.events)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for watch events; got ${JSON.stringify(this.summary())}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 20);
      });
    }
    return this.events;
  }

  /** `TYPE name` per event (BOOKMARK/ERROR: `TYPE rv` / `ERROR code`) */
  summary(): string[] {
    return this.events.map((e) => {
      const o = e.object as KubeObject & { code?: number };
      if (e.type === 'ERROR') return `ERROR ${o.code}`;
      if (e.type === 'BOOKMARK') return 'BOOKMARK';
      return `${e.type} ${o.metadata?.name}`;
    });
  }
}
