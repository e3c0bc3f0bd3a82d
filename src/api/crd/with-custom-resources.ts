/**
 * The registry as the HTTP layer sees it, with custom resources converted by webhook at its edge
 * (see custom-resource.ts for why the registry itself cannot wait for a webhook). For a kind of a
 * CRD with Webhook conversion, every verb runs on the CRD's storage kind, whose objects keep the
 * version they were stored in:
 *
 * - reads (get, list, watch, status, the answers of writes and deletes) are converted to the
 *   requested version in one ConversionReview per answer (per list, per run of watch events), then
 *   pruned and defaulted by the requested version's schema, as kube's storage codec does;
 * - writes are checked in the requested version first (decode-time pruning, fieldValidation,
 *   defaults, schema validation: the causes name the fields the client sent), then converted to
 *   the storage version and handed to the registry, which prepares and validates them again there;
 * - patches are applied to the current object in the requested version and written as an update
 *   guarded by its resourceVersion (retried when someone else wrote meanwhile); server-side apply
 *   converts the applied configuration and applies it in the storage version (managed fields are
 *   recorded in the storage version's apiVersion);
 * - an object still stored in an older storage version is rewritten in the current one before a
 *   write touches it.
 *
 * Other kinds pass through untouched.
 */
import { errors, isApiError } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import { apiVersionOf } from '../scheme';
import { applyPatch } from '../patch';
import type { DeleteResult, KubeList, PatchType, Registry, Target, WriteOptions, WriteResult } from '../registry/types';
import { checkPatchType } from '../registry/patch';
import { parseApplyBody } from '../registry/apply';
import { kindOptions } from '../registry/context';
import { coerceObject } from './custom-schema';
import type { CustomResource } from './custom-resource';
import type { WebhookConverter } from './conversion/webhook-converter';
import { ConvertingSink } from './conversion/converting-sink';

export interface CustomResourceEdgeOptions {
  registry: Registry;
  /** the custom resource a kind belongs to */
  resourceOf(kind: KindDefinition): CustomResource | undefined;
  /** the webhook converter of a custom resource */
  converterOf(resource: CustomResource): WebhookConverter;
}

const MAX_PATCH_ATTEMPTS = 8;
const MIGRATION = { dryRun: false, fieldManager: 'kube-apiserver' };

/** one request on a webhook-converted kind */
class Edge {
  readonly requested: KindDefinition;
  readonly storage: KindDefinition;
  readonly storageTarget: Target;

  constructor(
    readonly inner: Registry,
    readonly cr: CustomResource,
    readonly converter: WebhookConverter,
    readonly target: Target,
  ) {
    this.requested = target.kind;
    this.storage = cr.storageKind;
    this.storageTarget = { ...target, kind: cr.storageKind };
  }

  get apiVersion(): string {
    return apiVersionOf(this.requested);
  }

  /** objects in the requested version (converted copies; objects already there are returned as they are) */
  async toRequested(objects: KubeObject[]): Promise<KubeObject[]> {
    const converted = await this.converter.convert(objects, this.apiVersion);
    return converted.map((obj, i) => {
      if (objects[i].apiVersion === this.apiVersion) return obj;
      coerceObject(obj, this.cr.schema(this.requested.version), true);
      this.requested.strategy.defaults(obj);
      return obj;
    });
  }

  async one(obj: KubeObject): Promise<KubeObject> {
    return (await this.toRequested([obj]))[0];
  }

  async toStorage(obj: KubeObject): Promise<KubeObject> {
    const [out] = await this.converter.convert([obj], apiVersionOf(this.storage));
    return out;
  }

  /** what the registry would check of a body at decode, prepare and validation time, in the requested version */
  check(body: KubeObject, options: WriteOptions, mode: 'create' | 'update' | 'status'): { obj: KubeObject; warnings: string[] } {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.badRequest('the body of the request must be a JSON object');
    const obj = structuredClone(body);
    obj.apiVersion = this.apiVersion;
    obj.kind = this.requested.kind;
    const warnings = kindOptions(this.requested).checkSchema?.(obj, options.fieldValidation, options.strictDecodingErrors ?? []) ?? [];
    this.requested.strategy.defaults(obj);
    const view = structuredClone(obj);
    if (mode !== 'status' && this.requested.statusSubresource) delete view.status;
    const causes = mode === 'status' ? (this.requested.strategy.validateStatus?.(view, view) ?? []) : this.requested.strategy.validate(view);
    if (causes.length) throw errors.invalid(this.requested.kind, this.requested.group, String(obj.metadata?.name ?? ''), causes);
    if (mode === 'create' && this.requested.statusSubresource) delete obj.status;
    return { obj, warnings };
  }

  /** the registry is told nothing of unknown fields again: they were reported in the requested version */
  innerOptions<T extends WriteOptions>(options: T): T {
    const out = { ...options, fieldValidation: 'Ignore' as const };
    delete out.strictDecodingErrors;
    return out;
  }

  /** the current object, rewritten in the storage version first when it is still in an older one */
  async current(): Promise<KubeObject> {
    const cur = await this.inner.get(this.storageTarget, {});
    if (cur.apiVersion === apiVersionOf(this.storage)) return cur;
    const converted = await this.toStorage(cur);
    const updated = await this.inner.update(this.storageTarget, converted, MIGRATION);
    if (!this.storage.statusSubresource || converted.status === undefined) return updated.object;
    const withStatus = { ...converted, metadata: { ...converted.metadata, resourceVersion: updated.object.metadata?.resourceVersion } };
    return (await this.inner.updateStatus(this.storageTarget, withStatus, MIGRATION)).object;
  }

  async result(r: WriteResult, warnings: string[]): Promise<WriteResult> {
    const all = [...new Set([...warnings, ...(r.warnings ?? [])])];
    const out: WriteResult = { ...r, object: await this.one(r.object) };
    if (all.length) out.warnings = all;
    else delete out.warnings;
    return out;
  }

  async list(l: KubeList): Promise<KubeList> {
    const items = await this.toRequested(l.items);
    return { apiVersion: this.apiVersion, kind: this.requested.listKind, metadata: l.metadata, items };
  }

  /** a json or merge patch on the current object in the requested version, written as a guarded update */
  async patch(type: PatchType, body: string, options: WriteOptions, write: (obj: KubeObject, o: WriteOptions) => Promise<WriteResult>, mode: 'update' | 'status'): Promise<WriteResult> {
    for (let attempt = 0; ; attempt++) {
      const cur = await this.current();
      const curRequested = structuredClone(await this.one(cur));
      const patched = applyPatch(type as 'json' | 'merge', curRequested, body);
      if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) throw errors.badRequest('the patched object must be a JSON object');
      const meta = (patched.metadata ??= {});
      const rv = cur.metadata?.resourceVersion;
      if (meta.resourceVersion === undefined || meta.resourceVersion === '') meta.resourceVersion = rv;
      const own = meta.resourceVersion !== rv;
      const { obj, warnings } = this.check(patched, options, mode);
      const stored = await this.toStorage(obj);
      try {
        return await this.result(await write(stored, this.innerOptions(options)), warnings);
      } catch (err) {
        // someone wrote between our read and our write: patch the newer object (not the client's precondition)
        if (isApiError(err) && err.code === 409 && err.status.reason === 'Conflict' && !own && attempt < MAX_PATCH_ATTEMPTS) continue;
        throw err;
      }
    }
  }

  /** server-side apply: the configuration converted, then applied in the storage version */
  async apply(body: string, options: WriteOptions & { force?: boolean }, status: boolean): Promise<WriteResult> {
    const config = parseApplyBody(body);
    const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
    if (apiVersion !== this.apiVersion || config.kind !== this.requested.kind) {
      throw errors.badRequest(`invalid object type: ${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${String(config.kind ?? '')}`);
    }
    const meta = (config.metadata = typeof config.metadata === 'object' && config.metadata !== null ? { ...config.metadata } : {});
    if (!meta.name) meta.name = this.target.name;
    if (this.requested.namespaced && !meta.namespace) meta.namespace = this.target.namespace;
    const warnings = kindOptions(this.requested).checkSchema?.(config, options.fieldValidation, []) ?? [];
    if (this.target.name) await this.current().catch((err) => (isApiError(err) && err.code === 404 ? undefined : Promise.reject(err)));
    const converted = await this.toStorage(config);
    const text = JSON.stringify(converted);
    const r = status ? await this.inner.patchStatus(this.storageTarget, 'apply', text, this.innerOptions(options)) : await this.inner.patch(this.storageTarget, 'apply', text, this.innerOptions(options));
    return this.result(r, warnings);
  }
}

function isStatus(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

export function withCustomResources(o: CustomResourceEdgeOptions): Registry {
  const inner = o.registry;
  const edgeOf = (t: Target): Edge | undefined => {
    const cr = o.resourceOf(t.kind);
    return cr?.webhook ? new Edge(inner, cr, o.converterOf(cr), t) : undefined;
  };
  return {
    async get(t, opts) {
      const e = edgeOf(t);
      return e ? e.one(await inner.get(e.storageTarget, opts)) : inner.get(t, opts);
    },
    async list(t, opts) {
      const e = edgeOf(t);
      return e ? e.list(await inner.list(e.storageTarget, opts)) : inner.list(t, opts);
    },
    async watch(t, opts, sink) {
      const e = edgeOf(t);
      if (!e) return inner.watch(t, opts, sink);
      let handle: { cancel(): void } | undefined;
      let cancelled = false;
      const converting = new ConvertingSink({
        downstream: sink,
        apiVersion: e.apiVersion,
        convert: (objects) => e.toRequested(objects),
        cancel: () => {
          cancelled = true;
          handle?.cancel();
        },
      });
      handle = await inner.watch(e.storageTarget, opts, converting);
      if (cancelled) handle.cancel();
      return { cancel: () => handle?.cancel() };
    },
    async create(t, body, opts) {
      const e = edgeOf(t);
      if (!e) return inner.create(t, body, opts);
      const { obj, warnings } = e.check(body, opts, 'create');
      const stored = await e.toStorage(obj);
      return e.result(await inner.create(e.storageTarget, stored, e.innerOptions(opts)), warnings);
    },
    async update(t, body, opts) {
      const e = edgeOf(t);
      if (!e) return inner.update(t, body, opts);
      const { obj, warnings } = e.check(body, opts, 'update');
      await e.current();
      const stored = await e.toStorage(obj);
      return e.result(await inner.update(e.storageTarget, stored, e.innerOptions(opts)), warnings);
    },
    async patch(t, type, body, opts) {
      const e = edgeOf(t);
      if (!e) return inner.patch(t, type, body, opts);
      checkPatchType(t.kind, type);
      if (type === 'apply') return e.apply(body, opts, false);
      return e.patch(type, body, opts, (obj, wo) => inner.update(e.storageTarget, obj, wo), 'update');
    },
    async delete(t, opts) {
      const e = edgeOf(t);
      if (!e) return inner.delete(t, opts);
      const r: DeleteResult = await inner.delete(e.storageTarget, opts);
      return isStatus(r.body) ? r : { ...r, body: await e.one(r.body as KubeObject) };
    },
    async deleteCollection(t, l, opts) {
      const e = edgeOf(t);
      return e ? e.list(await inner.deleteCollection(e.storageTarget, l, opts)) : inner.deleteCollection(t, l, opts);
    },
    async getStatus(t, opts) {
      const e = edgeOf(t);
      return e ? e.one(await inner.getStatus(e.storageTarget, opts)) : inner.getStatus(t, opts);
    },
    async updateStatus(t, body, opts) {
      const e = edgeOf(t);
      if (!e) return inner.updateStatus(t, body, opts);
      if (!t.kind.statusSubresource) return inner.updateStatus(t, body, opts);
      const { obj, warnings } = e.check(body, opts, 'status');
      await e.current();
      const stored = await e.toStorage(obj);
      return e.result(await inner.updateStatus(e.storageTarget, stored, e.innerOptions(opts)), warnings);
    },
    async patchStatus(t, type, body, opts) {
      const e = edgeOf(t);
      if (!e || !t.kind.statusSubresource) return inner.patchStatus(t, type, body, opts);
      checkPatchType(t.kind, type);
      if (type === 'apply') return e.apply(body, opts, true);
      return e.patch(type, body, opts, (obj, wo) => inner.updateStatus(e.storageTarget, obj, wo), 'status');
    },
    async getScale(t, opts) {
      const e = edgeOf(t);
      return inner.getScale(e ? e.storageTarget : t, opts);
    },
    async updateScale(t, body, opts) {
      const e = edgeOf(t);
      if (e) await e.current();
      return inner.updateScale(e ? e.storageTarget : t, body, opts);
    },
    async patchScale(t, type, body, opts) {
      const e = edgeOf(t);
      if (e) {
        checkPatchType(t.kind, type);
        await e.current();
      }
      return inner.patchScale(e ? e.storageTarget : t, type, body, opts);
    },
    getSubresource: (t, name, opts) => inner.getSubresource(t, name, opts),
    updateSubresource: (t, name, body, opts) => inner.updateSubresource(t, name, body, opts),
    patchSubresource: (t, name, type, body, opts) => inner.patchSubresource(t, name, type, body, opts),
    createSubresource: (t, name, body, opts) => inner.createSubresource(t, name, body, opts),
  };
}


