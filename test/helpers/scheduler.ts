/**
 * Run a scheduler in the test process against a real API server (test/e2e/harness.ts), with the
 * admin's kubeconfig and the given profiles. It stops when the test ends.
 */
import pino from 'pino';
import type { Test } from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RestClient } from '../../src/client/rest-client';
import { DEFAULT_FEATURE_GATES } from '../../src/options/feature-gates';
import { defaultConfiguration, resolveProfiles } from '../../src/scheduler/config';
import { buildScheduler } from '../../src/scheduler/run';
import type { PluginFactory } from '../../src/scheduler/framework/types';
import type { ProfileConfig } from '../../src/scheduler/runtime';

/** the profiles kube-scheduler 1.20 runs with no configuration (DefaultProvider, one profile) */
export function defaultProfiles(names: readonly string[] = ['default-scheduler']): ProfileConfig[] {
  const cfg = defaultConfiguration({ profiles: names.map((schedulerName) => ({ schedulerName })) }, DEFAULT_FEATURE_GATES);
  return [...resolveProfiles({ componentConfig: cfg, algorithmSource: { provider: 'DefaultProvider' }, featureGates: DEFAULT_FEATURE_GATES, hardPodAffinitySymmetricWeight: 1 }).profiles];
}

export interface TestScheduler {
  client: RestClient;
  stop(): Promise<void>;
}

export function startScheduler(t: Test, server: { kubeconfig: string }, profiles: readonly ProfileConfig[], o: { percentageOfNodesToScore?: number; plugins?: Record<string, PluginFactory> } = {}): TestScheduler {
  const client = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'ballast-test-scheduler' }), { qps: -1, contentType: 'application/vnd.kubernetes.protobuf' });
  const logger = pino({ level: process.env.BALLAST_TEST_LOG ? 'debug' : 'silent' });
  const { scheduler, informers } = buildScheduler(
    { profiles, percentageOfNodesToScore: o.percentageOfNodesToScore ?? 0, podInitialBackoffSeconds: 1, podMaxBackoffSeconds: 10, featureGates: DEFAULT_FEATURE_GATES },
    { client, logger, plugins: o.plugins },
  );
  const abort = new AbortController();
  scheduler.addEventHandlers();
  informers.start(abort.signal);
  const run = (async () => {
    if (await informers.waitForCacheSync(abort.signal)) await scheduler.run(abort.signal);
    await informers.stopped();
  })();
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
