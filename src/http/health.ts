/**
 * /healthz, /livez and /readyz (spec 4.8), with kube's text output: `[+]name ok`,
 * `[+]name excluded: ok`, `[-]name failed: reason withheld`, then `<endpoint> check passed` or
 * `<endpoint> check failed` (500). Non-verbose success is `ok`. `/<endpoint>/<check>` runs one check.
 */
import type pino from 'pino';
import type { ApiContext } from './context';
import { pathNotFound } from './http-errors';

export interface HealthCheck {
  name: string;
  /** resolves when healthy; throws (the reason is logged, never shown) when failing */
  check(): Promise<void>;
  /** only part of /readyz (not /livez or /healthz) */
  readyOnly?: boolean;
  /** what /livez runs instead of `check` (post-start hooks pass there during --livez-grace-period) */
  livezCheck?(): Promise<void>;
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export interface HealthOptions {
  checks: HealthCheck[];
  isShuttingDown(): boolean;
}

const ok = async (): Promise<void> => {};

function checksFor(endpoint: HealthEndpoint, o: HealthOptions): HealthCheck[] {
  const list: HealthCheck[] = [
    { name: 'ping', check: ok },
    { name: 'log', check: ok },
    ...o.checks
      .filter((c) => endpoint === 'readyz' || !c.readyOnly)
      .map((c) => (endpoint === 'livez' && c.livezCheck ? { ...c, check: c.livezCheck } : c)),
  ];
  if (endpoint === 'readyz') {
    list.push({
      name: 'shutdown',
      check: async () => {
        if (o.isShuttingDown()) throw new Error('process is shutting down');
      },
    });
  }
  return list;
}

function writeText(ctx: ApiContext, code: number, text: string): void {
  ctx.status = code;
  ctx.body = text;
  ctx.set('Content-Type', 'text/plain; charset=utf-8');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

async function outcome(c: HealthCheck): Promise<Error | undefined> {
  try {
    await c.check();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

export async function serveHealth(ctx: ApiContext, endpoint: HealthEndpoint, checkName: string | undefined, o: HealthOptions, log: pino.Logger): Promise<void> {
  const checks = checksFor(endpoint, o);
  if (checkName !== undefined) {
    const c = checks.find((x) => x.name === checkName);
    if (!c) throw pathNotFound();
    const err = await outcome(c);
    if (err) writeText(ctx, 500, `internal server error: ${err.message}\n`);
    else writeText(ctx, 200, 'ok');
    return;
  }
  const excluded = new Set(ctx.state.query.getAll('exclude'));
  const results = await Promise.all(checks.map((c) => (excluded.has(c.name) ? Promise.resolve('excluded' as const) : outcome(c))));
  const lines: string[] = [];
  const failed: string[] = [];
  checks.forEach((c, i) => {
    const r = results[i];
    if (r === 'excluded') {
      excluded.delete(c.name);
      lines.push(`[+]${c.name} excluded: ok`);
    } else if (r) {
      lines.push(`[-]${c.name} failed: reason withheld`);
      failed.push(c.name);
      log.info({ check: c.name, endpoint, err: r.message }, 'health check failed');
    } else {
      lines.push(`[+]${c.name} ok`);
    }
  });
  if (excluded.size > 0) {
    const names = [...excluded].sort().map((n) => JSON.stringify(n)).join(',');
    lines.push(`warn: some health checks cannot be excluded: no matches for ${names}`);
  }
  if (failed.length > 0) {
    // failures are always verbose
    writeText(ctx, 500, `${lines.join('\n')}\n${endpoint} check failed\n`);
    return;
  }
  if (!ctx.state.query.has('verbose')) {
    writeText(ctx, 200, 'ok');
    return;
  }
  writeText(ctx, 200, `${lines.join('\n')}\n${endpoint} check passed\n`);
}
