/**
 * kube's post-start hooks: work that runs once the server listens (the kubernetes service, the
 * identity lease). Each hook is the health check `poststarthook/<name>`, failing until the hook
 * finished. In /livez the checks pass during --livez-grace-period after the start (kube's delayed
 * boot-sequence checks), so a slow start is not mistaken for a dead server; /readyz and /healthz
 * wait for the hooks.
 */
import type { Logger } from 'pino';
import type { HealthCheck } from '../http/app';

interface Hook {
  name: string;
  done: boolean;
  error?: Error;
}

export class PostStartHooks {
  readonly #hooks: Hook[] = [];
  readonly #logger: Logger;
  readonly #clock: () => number;
  #startedAt: number;

  constructor(o: { logger: Logger; clock?: () => number }) {
    this.#logger = o.logger;
    this.#clock = o.clock ?? Date.now;
    this.#startedAt = this.#clock();
  }

  /** the time the grace period counts from (the server listening) */
  markStarted(): void {
    this.#startedAt = this.#clock();
  }

  /** run `fn` now, in the background; its check passes once it resolves */
  run(name: string, fn: () => Promise<void>): Promise<void> {
    const hook: Hook = { name, done: false };
    this.#hooks.push(hook);
    return fn().then(
      () => {
        hook.done = true;
      },
      (err: unknown) => {
        hook.error = err instanceof Error ? err : new Error(String(err));
        this.#logger.error({ err, hook: name }, `PostStartHook "${name}" failed`);
      },
    );
  }

  /** the checks of every hook run so far and later (a hook's check is looked up at check time) */
  healthChecks(names: readonly string[], livezGracePeriodMs: number): HealthCheck[] {
    return names.map((name) => {
      const check = async (): Promise<void> => {
        const hook = this.#hooks.find((h) => h.name === name);
        if (hook?.error) throw new Error(`PostStartHook "${name}" failed: ${hook.error.message}`);
        if (!hook?.done) throw new Error('not finished');
      };
      return {
        name: `poststarthook/${name}`,
        check,
        livezCheck: async () => {
          if (this.#clock() - this.#startedAt < livezGracePeriodMs) return;
          await check();
        },
      };
    });
  }
}
