/** A raw watch stream reader: newline-delimited JSON frames from a chunked watch response. */
import https from 'node:https';
import type { Client } from './client';

export interface WatchFrame {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: any;
}

export interface WatchStream {
  /** the HTTP status of the watch response */
  readonly status: Promise<number>;
  /** resolves when the stream ended (server closed it, or an error) */
  readonly ended: Promise<void>;
  readonly frames: WatchFrame[];
  /** wait until pred holds for some frame (checked on every new frame), or reject after timeoutMs */
  waitFor(pred: (f: WatchFrame) => boolean, timeoutMs: number): Promise<WatchFrame>;
  close(): void;
}

export function openWatch(client: Client, path: string, onFrame?: (f: WatchFrame) => void): WatchStream {
  const frames: WatchFrame[] = [];
  const waiters = new Set<() => void>();
  let resolveStatus!: (s: number) => void;
  let resolveEnded!: () => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const ended = new Promise<void>((r) => (resolveEnded = r));
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    resolveStatus(0);
    resolveEnded();
    for (const w of waiters) w();
  };
  const req = https.request(`${client.url}${path}`, { method: 'GET', ca: client.ca, agent: false }, (res) => {
    resolveStatus(res.statusCode ?? 0);
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const f = JSON.parse(line) as WatchFrame;
        frames.push(f);
        onFrame?.(f);
        for (const w of waiters) w();
      }
    });
    res.on('end', finish);
    res.on('error', finish);
    res.on('close', finish);
  });
  req.on('error', finish);
  req.end();
  return {
    status,
    ended,
    frames,
    close() {
      req.destroy();
      finish();
    },
    waitFor(pred, timeoutMs) {
      return new Promise<WatchFrame>((resolve, reject) => {
        const check = () => {
          const f = frames.find(pred);
          if (f) {
            cleanup();
            resolve(f);
          } else if (done) {
            cleanup();
            reject(new Error(`watch ${path} ended before the awaited frame (${frames.length} frames)`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for a watch frame on ${path} (${frames.length} frames)`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}
