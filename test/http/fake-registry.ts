/**
 * A stub Registry for HTTP tests: records every call (verb, target, options, body) and answers with
 * canned objects, or with the error a test sets. Watches hand their sink to the test.
 */
import type { ApiError } from '../../src/api/errors';
import type { KubeObject } from '../../src/api/kind';
import type {
  DeleteOptions,
  DeleteResult,
  GetOptions,
  KubeList,
  ListOptions,
  PatchType,
  Registry,
  Target,
  WatchHandle,
  WatchSink,
  WriteOptions,
  WriteResult,
} from '../../src/api/registry/types';

export interface Call {
  verb: string;
  target: { kind: string; namespace?: string; name?: string };
  options?: unknown;
  body?: unknown;
  patchType?: PatchType;
  list?: ListOptions;
}

export interface FakeWatch {
  target: Call['target'];
  options: ListOptions;
  sink: WatchSink;
  cancelled: boolean;
}

export function sampleObject(name: string, extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: 'test.ballast.io/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', creationTimestamp: '2024-05-01T10:00:00Z' },
    spec: { size: 3 },
    ...extra,
  };
}

export class FakeRegistry implements Registry {
  readonly calls: Call[] = [];
  readonly watches: FakeWatch[] = [];
  /** the next call of this verb throws this error (once) */
  readonly failures = new Map<string, unknown>();
  /** objects get/list return */
  objects: KubeObject[] = [sampleObject('a'), sampleObject('b')];
  listMeta: KubeList['metadata'] = { resourceVersion: '42' };
  created = true;
  warnings: string[] | undefined;
  /** events a watch sends synchronously while it starts (initial events) */
  initialEvents: { type: 'ADDED'; object: KubeObject }[] = [];
  /** delay before get/list answer (ms), to hold requests in flight */
  delayMs = 0;

  #record(verb: string, target: Target, extra: Omit<Call, 'verb' | 'target'> = {}): void {
    const t: Call['target'] = { kind: target.kind.kind };
    if (target.namespace !== undefined) t.namespace = target.namespace;
    if (target.name !== undefined) t.name = target.name;
    this.calls.push({ verb, target: t, ...extra });
    const failure = this.failures.get(verb);
    if (failure !== undefined) {
      this.failures.delete(verb);
      throw failure;
    }
  }

  lastCall(): Call {
    return this.calls[this.calls.length - 1];
  }

  async #pause(): Promise<void> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
  }

  #write(body: KubeObject): WriteResult {
    return { object: { ...body, metadata: { ...body.metadata, resourceVersion: '8' } }, created: this.created, warnings: this.warnings };
  }

  async get(target: Target, options: GetOptions): Promise<KubeObject> {
    this.#record('get', target, { options });
    await this.#pause();
    return this.objects.find((o) => o.metadata?.name === target.name) ?? this.objects[0];
  }
  async list(target: Target, options: ListOptions): Promise<KubeList> {
    this.#record('list', target, { options });
    await this.#pause();
    return { apiVersion: 'test.ballast.io/v1', kind: 'WidgetList', metadata: this.listMeta, items: this.objects };
  }
  async watch(target: Target, options: ListOptions, sink: WatchSink): Promise<WatchHandle> {
    this.#record('watch', target, { options });
    const t = this.lastCall().target;
    const w: FakeWatch = { target: t, options, sink, cancelled: false };
    this.watches.push(w);
    for (const e of this.initialEvents) sink.send(e);
    return {
      cancel: () => {
        w.cancelled = true;
      },
    };
  }
  async create(target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
    this.#record('create', target, { options, body });
    return this.#write(body);
  }
  async update(target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
    this.#record('update', target, { options, body });
    return this.#write(body);
  }
  async patch(target: Target, type: PatchType, body: string, options: WriteOptions & { force?: boolean }): Promise<WriteResult> {
    this.#record('patch', target, { options, body, patchType: type });
    return this.#write(this.objects[0]);
  }
  async delete(target: Target, options: DeleteOptions): Promise<DeleteResult> {
    this.#record('delete', target, { options });
    return { code: 200, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: target.name } } as never };
  }
  async deleteCollection(target: Target, list: ListOptions, options: DeleteOptions): Promise<KubeList> {
    this.#record('deletecollection', target, { options, list });
    return { apiVersion: 'test.ballast.io/v1', kind: 'WidgetList', metadata: { resourceVersion: '43' }, items: [] };
  }
  async getStatus(target: Target, options: GetOptions): Promise<KubeObject> {
    this.#record('getStatus', target, { options });
    return this.objects[0];
  }
  async updateStatus(target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
    this.#record('updateStatus', target, { options, body });
    return this.#write(body);
  }
  async patchStatus(target: Target, type: PatchType, body: string, options: WriteOptions & { force?: boolean }): Promise<WriteResult> {
    this.#record('patchStatus', target, { options, body, patchType: type });
    return this.#write(this.objects[0]);
  }
  async getScale(target: Target, options: GetOptions): Promise<KubeObject> {
    this.#record('getScale', target, { options });
    return { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: target.name }, spec: { replicas: 3 } };
  }
  async updateScale(target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
    this.#record('updateScale', target, { options, body });
    return this.#write(body);
  }
  async patchScale(target: Target, type: PatchType, body: string, options: WriteOptions & { force?: boolean }): Promise<WriteResult> {
    this.#record('patchScale', target, { options, body, patchType: type });
    return { object: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: target.name }, spec: { replicas: 5 } }, created: false };
  }
}

export type { ApiError };
