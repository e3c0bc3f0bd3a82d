/**
 * Run controllers in the test process against a real API server (test/e2e/harness.ts), as the
 * controller manager would, with the admin's kubeconfig. They stop when the test ends.
 */
import pino from 'pino';
import type { Test } from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RestClient } from '../../src/client/rest-client';
import { CONTROLLERS } from '../../src/controllers';
import { runControllers } from '../../src/controllers/run';
import { DEFAULT_CONTROLLER_SETTINGS, type ControllerSettings } from '../../src/controllers/settings';
import type { ControllerDefinition } from '../../src/controllers/types';

export interface TestControllers {
  client: RestClient;
  /** resolves when the controllers have stopped */
  stop(): Promise<void>;
}

export function startControllers(
  t: Test,
  server: { kubeconfig: string },
  names: readonly (string | ControllerDefinition)[],
  settings: Partial<ControllerSettings> = {},
): TestControllers {
  const client = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'ballast-test-controllers' }), { qps: -1, contentType: 'application/vnd.kubernetes.protobuf' });
  const controllers = names.map((n) => {
    if (typeof n !== 'string') return n;
    const c = CONTROLLERS.get(n);
    if (!c) throw new Error(`no controller named ${n}`);
    return c;
  });
  const abort = new AbortController();
  const level = process.env.BALLAST_TEST_LOG ? 'debug' : 'silent';
  const run = runControllers({
    client,
    controllers,
    settings: { ...DEFAULT_CONTROLLER_SETTINGS, ...settings },
    logger: pino({ level }),
    signal: abort.signal,
  });
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      abort.abort();
      await run;
      client.close();
    })();
    return stopped;
  };
  t.teardown(stop);
  return { client, stop };
}
