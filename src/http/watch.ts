/**
 * Watch streaming: a 200 chunked response with one `{"type":...,"object":...}` frame per event,
 * written as the registry delivers them. The stream ends cleanly at its timeout (timeoutSeconds, else
 * kube's random pick in [minRequestTimeout, 2*minRequestTimeout)), when the registry ends it, or at
 * shutdown; the registry watch is cancelled when the client goes away. A client that does not read
 * fast enough gets an ERROR event (410 Expired) and the stream is closed: memory stays bounded.
 */
import { ApiError } from '../api/errors';
import type { Status } from '../api/errors';
import type { KindDefinition, KubeObject } from '../api/kind';
import type { ApiWatchEvent, ListOptions, Registry, Target, WatchHandle } from '../api/registry/types';
import { toTable } from '../api/table';
import type { IncludeObject } from '../api/table';
import type { ApiContext } from './context';
import type { Negotiated } from './negotiate';
import { watchFrame } from '../cache/encoded';

/** bytes a watch may have waiting in the socket before the client counts as fallen behind */
export const defaultMaxWatchBufferedBytes = 16 * 1024 * 1024;

export interface ServeWatchOptions {
  ctx: ApiContext;
  registry: Registry;
  target: Target;
  options: ListOptions;
  negotiated: Negotiated;
  includeObject: IncludeObject;
  /** how long the stream stays open */
  timeoutMs: number;
  maxBufferedBytes: number;
  /** registers a closer called at shutdown; returns its unregistration */
  track(close: () => void): () => void;
}

/** kube's watch duration: timeoutSeconds when given (and non-zero), else random in [min, 2*min) */
export function watchTimeoutMs(timeoutSeconds: number | undefined, minRequestTimeoutSeconds: number): number {
  if (timeoutSeconds !== undefined && timeoutSeconds > 0) return timeoutSeconds * 1000;
  return Math.floor(minRequestTimeoutSeconds * 1000 * (1 + Math.random()));
}

const fellBehind: Status = new ApiError(410, 'Expired', 'the watch fell behind: the client did not read events fast enough').status;

/** resolves when the stream has ended, whoever ended it; rejects only before the stream starts */
export async function serveWatch(o: ServeWatchOptions): Promise<void> {
  const { ctx, negotiated } = o;
  const res = ctx.res;
  const encodeFrame = negotiated.codec.encodeFrame!;
  let started = false;
  let closed = false;
  let firstTable = true;
  let handle: WatchHandle | undefined;
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let untrack = () => {};
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));

  const transform = (event: ApiWatchEvent): unknown => {
    if (!negotiated.table || event.type === 'ERROR') return event;
    const obj = event.object as KubeObject;
    const rv = obj.metadata?.resourceVersion;
    const objects = event.type === 'BOOKMARK' ? [] : [obj];
    const table = toTable(o.target.kind as KindDefinition, objects, {
      includeObject: o.includeObject,
      now: new Date(),
      apiVersion: negotiated.table,
      listMeta: rv ? { resourceVersion: rv } : {},
      // kube sends the column definitions with the first event only
      noHeaders: !firstTable,
    });
    firstTable = false;
    return { type: event.type, object: table };
  };

  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    untrack();
    handle?.cancel();
    if (started && !res.writableEnded) res.end();
    finished();
  };

  let corked = false;
  const write = (frame: Buffer): void => {
    if (!started) {
      pending.push(frame);
      pendingBytes += frame.length;
      return;
    }
    // the events of one commit arrive in one synchronous run: held back until it ends, they leave
    // in one write to the socket (one TLS record) instead of one each
    if (!corked && typeof res.cork === 'function') {
      corked = true;
      res.cork();
      process.nextTick(() => {
        corked = false;
        res.uncork();
      });
    }
    res.write(frame);
  };

  const overLimit = () => (started ? res.writableLength : pendingBytes) > o.maxBufferedBytes;

  const sink = {
    send(event: ApiWatchEvent): boolean {
      if (closed) return false;
      // a watch-cache event is encoded once per media type for every watcher (src/cache/encoded.ts)
      write(negotiated.table || event.type === 'ERROR' ? encodeFrame(transform(event)) : watchFrame(event, negotiated.contentType, encodeFrame));
      if (overLimit()) {
        // the client is not keeping up: tell it (when the socket still takes anything) and stop
        write(encodeFrame({ type: 'ERROR', object: fellBehind }));
        if (started) close();
        else closed = true;
        return false;
      }
      return true;
    },
    end(): void {
      if (started) close();
      else closed = true;
    },
  };

  handle = await o.registry.watch(o.target, o.options, sink);

  // the watch exists: from here on the response is a stream
  ctx.respond = false;
  ctx.status = 200;
  res.setHeader('Content-Type', negotiated.contentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  res.flushHeaders();
  started = true;
  for (const frame of pending.splice(0)) res.write(frame);
  if (closed) {
    // ended (or fell behind) while the registry was still starting the watch
    closed = false;
    close();
    return done;
  }
  res.on('close', close);
  if (res.destroyed) {
    // the client left while the registry was starting the watch
    close();
    return done;
  }
  timer = setTimeout(close, o.timeoutMs);
  untrack = o.track(close);
  return done;
}
