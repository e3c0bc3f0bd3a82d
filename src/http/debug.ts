/**
 * --profiling: kube serves Go's net/http/pprof under /debug/pprof/. Node has no pprof, so the same
 * paths answer with what V8 offers:
 *
 *   /debug/pprof/                  an index of the profiles below
 *   /debug/pprof/profile?seconds=N a CPU profile of N seconds (default 30) as V8 .cpuprofile JSON
 *                                  (node:inspector's Profiler; open it in Chrome DevTools), not pprof
 *   /debug/pprof/heap              a V8 heap snapshot (.heapsnapshot JSON), streamed as it is taken
 *   /debug/pprof/cmdline           the command line, arguments separated by NUL bytes (as Go's)
 *
 * Without --profiling the paths are not served (404, from the router).
 */
import { Session } from 'node:inspector';
import v8 from 'node:v8';
import { ApiError } from '../api/errors';
import type { ApiContext } from './context';
import { methodNotSupported, pathNotFound } from './http-errors';

const profiles: Record<string, string> = {
  profile: 'CPU profile (V8 .cpuprofile JSON). ?seconds=N, default 30',
  heap: 'V8 heap snapshot (.heapsnapshot JSON)',
  cmdline: 'the command line of this process',
};

/** Go's default length of a CPU profile */
const DEFAULT_SECONDS = 30;

export interface DebugOptions {
  /** --request-timeout in seconds: a profile must end before the request would time out. Default 60 */
  requestTimeoutSeconds?: number;
}

export interface DebugHandlers {
  /** true when the path is under /debug/pprof and was answered */
  serve(ctx: ApiContext): Promise<boolean>;
}

export function debugHandlers(opts: DebugOptions = {}): DebugHandlers {
  let profiling = false;
  const timeout = opts.requestTimeoutSeconds ?? 60;

  async function cpuProfile(ctx: ApiContext): Promise<void> {
    const given = ctx.state.query.get('seconds');
    const seconds = given === null || given === '' ? DEFAULT_SECONDS : Number(given);
    if (!Number.isInteger(seconds) || seconds <= 0) {
      throw new ApiError(400, 'BadRequest', `invalid value for "seconds": ${JSON.stringify(given)} (a whole number of seconds)`);
    }
    // Go's pprof refuses a profile longer than the server's write timeout; ours is --request-timeout
    if (seconds >= timeout) {
      throw new ApiError(400, 'BadRequest', `profile duration exceeds server's request timeout (${seconds}s >= --request-timeout ${timeout}s)`);
    }
    // one at a time, as Go's runtime allows one CPU profile at a time
    if (profiling) throw new ApiError(500, 'InternalError', 'Could not enable CPU profiling: cpu profiling already in use');
    profiling = true;
    const session = new Session();
    try {
      session.connect();
      const post = <T>(method: string): Promise<T> =>
        new Promise((resolve, reject) => session.post(method, (err, res) => (err ? reject(err) : resolve(res as T))));
      await post('Profiler.enable');
      await post('Profiler.start');
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const { profile } = await post<{ profile: object }>('Profiler.stop');
      ctx.status = 200;
      ctx.type = 'application/json';
      ctx.set('Content-Disposition', 'attachment; filename="profile.cpuprofile"');
      ctx.body = JSON.stringify(profile);
    } finally {
      session.disconnect();
      profiling = false;
    }
  }

  function heap(ctx: ApiContext): void {
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.set('Content-Disposition', 'attachment; filename="heap.heapsnapshot"');
    ctx.body = v8.getHeapSnapshot();
  }

  function index(ctx: ApiContext): void {
    ctx.status = 200;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = ['/debug/pprof/', '', ...Object.entries(profiles).map(([name, what]) => `${name}\t${what}`), ''].join('\n');
  }

  return {
    async serve(ctx) {
      const parts = ctx.path.split('/').filter((p) => p !== '');
      if (parts[0] !== 'debug' || parts[1] !== 'pprof') return false;
      if (parts.length > 3) throw pathNotFound();
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw methodNotSupported(parts.join('/'), '', ctx.state.info.verb);
      switch (parts[2]) {
        case undefined:
          index(ctx);
          break;
        case 'profile':
          await cpuProfile(ctx);
          break;
        case 'heap':
          heap(ctx);
          break;
        case 'cmdline':
          ctx.status = 200;
          ctx.type = 'text/plain; charset=utf-8';
          ctx.body = process.argv.join('\0');
          break;
        default:
          throw pathNotFound();
      }
      return true;
    },
  };
}
