/** get, list and watch: JSON/YAML or a server-side Table (kubectl get), watch as a stream. */
import { errors } from '../../api/errors';
import { toTable } from '../../api/table';
import { negotiateOutput } from '../negotiate';
import { parseGetOptions, parseIncludeObject, parseListOptions } from '../query';
import { writeObject } from '../respond';
import { serveWatch, watchTimeoutMs } from '../watch';
import type { ResourceDeps, ResourceRequest } from './types';

export async function getResource(r: ResourceRequest, deps: ResourceDeps): Promise<void> {
  const { ctx } = r;
  const negotiated = negotiateOutput(ctx.get('Accept'), { allowTable: r.subresource !== 'scale', stream: false });
  const includeObject = negotiated.table ? parseIncludeObject(ctx.state.query) : 'Metadata';
  const opts = parseGetOptions(ctx.state.query);
  const obj = r.declared
    ? await deps.registry.getSubresource(r.target, r.declared.name, opts)
    : r.subresource === 'status'
      ? await deps.registry.getStatus(r.target, opts)
      : r.subresource === 'scale'
        ? await deps.registry.getScale(r.target, opts)
        : await deps.registry.get(r.target, opts);
  if (!negotiated.table) return writeObject(ctx, 200, obj, negotiated);
  const rv = obj.metadata?.resourceVersion;
  const table = toTable(r.kind, [obj], { includeObject, now: new Date(), apiVersion: negotiated.table, listMeta: rv ? { resourceVersion: rv } : {} });
  writeObject(ctx, 200, table, negotiated);
}

export async function listResource(r: ResourceRequest, deps: ResourceDeps): Promise<void> {
  const { ctx } = r;
  const negotiated = negotiateOutput(ctx.get('Accept'), { allowTable: true, stream: false });
  const includeObject = negotiated.table ? parseIncludeObject(ctx.state.query) : 'Metadata';
  const options = parseListOptions(ctx.state.query, false);
  if (deps.featureGates?.enabled('APIListChunking') === false) {
    // kube's list handler drops both when chunking is off: the whole collection, one page
    delete options.limit;
    delete options.continue;
  }
  const list = await deps.registry.list(r.target, options);
  if (deps.featureGates?.enabled('RemainingItemCount') === false) delete list.metadata.remainingItemCount;
  if (!negotiated.table) return writeObject(ctx, 200, list, negotiated);
  const table = toTable(r.kind, list.items, { includeObject, now: new Date(), apiVersion: negotiated.table, listMeta: list.metadata });
  writeObject(ctx, 200, table, negotiated);
}

/** the one object a deprecated /watch/.../<name> path narrows to: kube's metadata.name field selector */
function withNameSelector(fieldSelector: string | undefined, name: string): string {
  const term = `metadata.name=${name}`;
  if (!fieldSelector) return term;
  const terms = fieldSelector.split(',').map((t) => t.trim());
  const named = terms.find((t) => /^metadata\.name\s*==?/.test(t));
  if (!named || named.replace(/^metadata\.name\s*==?\s*/, '') !== name) {
    throw errors.badRequest("fieldSelector metadata.name doesn't match requested name");
  }
  return fieldSelector;
}

export async function watchResource(r: ResourceRequest, deps: ResourceDeps): Promise<void> {
  const { ctx } = r;
  const negotiated = negotiateOutput(ctx.get('Accept'), { allowTable: true, stream: true });
  const includeObject = negotiated.table ? parseIncludeObject(ctx.state.query) : 'Metadata';
  const options = parseListOptions(ctx.state.query, true);
  if (deps.featureGates?.enabled('WatchBookmark') === false) delete options.allowWatchBookmarks;
  const target = { ...r.target };
  if (target.name !== undefined) {
    options.fieldSelector = withNameSelector(options.fieldSelector, target.name);
    delete target.name;
  }
  await serveWatch({
    ctx,
    registry: deps.registry,
    target,
    options,
    negotiated,
    includeObject,
    timeoutMs: watchTimeoutMs(options.timeoutSeconds, deps.minRequestTimeoutSeconds),
    maxBufferedBytes: deps.maxWatchBufferedBytes,
    track: deps.trackWatch,
  });
}
