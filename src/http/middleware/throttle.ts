/**
 * --max-connection-bytes-per-sec: the response bytes of long-running requests (watches, and the
 * log, exec, attach, portforward and proxy subresources) leave at most at that rate (kube wraps
 * such connections in a rate-limited writer). Writes are queued and let out by a token bucket that
 * holds at most one second of bytes; the queue counts in `writableLength`, so a watch whose client
 * (or limit) cannot keep up is still ended as fallen behind, and `end()` waits for the queue.
 */
import type { ServerResponse } from 'node:http';
import { isLongRunning } from '../request-info';
import type { ApiMiddleware } from '../context';

export function throttleLongRunning(bytesPerSec: number): ApiMiddleware {
  return async (ctx, next) => {
    if (bytesPerSec > 0 && ctx.state.info && isLongRunning(ctx.state.info)) throttle(ctx.res, bytesPerSec);
    await next();
  };
}

type WriteCallback = (err?: Error | null) => void;

/** replace res.write and res.end with rate-limited ones */
export function throttle(res: ServerResponse, bytesPerSec: number, clock: () => number = Date.now): void {
  const write = res.write.bind(res) as (chunk: Buffer, cb?: WriteCallback) => boolean;
  const end = res.end.bind(res) as (cb?: () => void) => ServerResponse;
  const baseLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(res), 'writableLength')?.get
    ?? Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Object.getPrototypeOf(res)), 'writableLength')?.get;
  const queue: { chunk: Buffer; cb?: WriteCallback }[] = [];
  let queued = 0;
  let tokens = 0;
  let last = clock();
  let timer: NodeJS.Timeout | undefined;
  let ending: (() => void) | undefined | null = null;

  const pump = (): void => {
    timer = undefined;
    const now = clock();
    tokens = Math.min(bytesPerSec, tokens + ((now - last) / 1000) * bytesPerSec);
    last = now;
    while (queue.length > 0 && tokens >= 1 && !res.destroyed) {
      const head = queue[0];
      const n = Math.min(Math.floor(tokens), head.chunk.length);
      tokens -= n;
      queued -= n;
      if (n === head.chunk.length) {
        queue.shift();
        write(head.chunk, head.cb);
      } else {
        write(head.chunk.subarray(0, n));
        head.chunk = head.chunk.subarray(n);
      }
    }
    if (res.destroyed) {
      queue.length = 0;
      queued = 0;
      return;
    }
    if (queue.length > 0) {
      timer = setTimeout(pump, Math.max(10, Math.ceil(((1 - tokens) / bytesPerSec) * 1000)));
      return;
    }
    res.emit('drain');
    if (ending !== null) end(ending);
  };

  res.on('close', () => {
    clearTimeout(timer);
    queue.length = 0;
    queued = 0;
  });
  Object.defineProperty(res, 'writableLength', {
    configurable: true,
    get: () => (baseLength ? (baseLength.call(res) as number) : 0) + queued,
  });
  res.write = ((chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
    const callback = (typeof encoding === 'function' ? encoding : cb) as WriteCallback | undefined;
    const enc = typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8';
    const buf = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, enc) : Buffer.from(chunk as Uint8Array);
    if (!res.headersSent) res.flushHeaders();
    queue.push({ chunk: buf, cb: callback });
    queued += buf.length;
    timer ??= setTimeout(pump, 0);
    return false;
  }) as typeof res.write;
  res.end = ((chunk?: unknown, encoding?: unknown, cb?: unknown): ServerResponse => {
    const callback = [chunk, encoding, cb].find((a) => typeof a === 'function') as (() => void) | undefined;
    if (chunk !== undefined && typeof chunk !== 'function' && chunk !== null) res.write(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    if (queue.length === 0 && timer === undefined) return end(callback);
    ending = callback;
    return res;
  }) as typeof res.end;
}
