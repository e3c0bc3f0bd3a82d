/**
 * Running a component's work only while it leads (kube's leaderelection.RunOrDie as the controller
 * manager and the scheduler use it): the lock, the `leader_election_master_status` gauge, the
 * `leaderElection` health check (unhealthy when leading but not renewed well past the lease), and
 * the exit rule: losing the lease ends the run with 1 ("leaderelection lost"); the caller's signal
 * ends it with 0.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { ClientConfig } from './kubeconfig';
import { LeaderElector, type LockKind } from './leader-election';
import { RestClient } from './rest-client';

export interface LeaderElectionSettings {
  enabled: boolean;
  lock: LockKind;
  name: string;
  namespace: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** kube's lock identity: host name, "_", a fresh UUID */
export function leaderIdentity(): string {
  return `${os.hostname()}_${crypto.randomUUID()}`;
}

export interface LeaderRunOptions {
  settings: LeaderElectionSettings;
  /** the client configuration the election's own client is made from */
  base: ClientConfig;
  userAgent: string;
  qps: number;
  burst: number;
  registry: Registry;
  /** the health check is added here (name `leaderElection`) when election is on */
  checks: Map<string, () => string | undefined>;
  logger: Logger;
  signal: AbortSignal;
  /** the work, run with a signal that aborts when leadership ends */
  lead(signal: AbortSignal): Promise<void>;
}

/** run `lead` (at once without election, else while leading); 0 on the caller's stop, 1 when the lease is lost */
export async function runLeaderElected(o: LeaderRunOptions): Promise<number> {
  const le = o.settings;
  const masterStatus = new Gauge({ name: 'leader_election_master_status', help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. \'name\' is the string used to identify the lease. Please make sure to group by name.', labelNames: ['name'], registers: [o.registry] });
  if (!le.enabled) {
    await o.lead(o.signal);
    return 0;
  }
  let leading = false;
  let lastRenewOk = Date.now();
  o.checks.set('leaderElection', () => (leading && Date.now() - lastRenewOk > le.leaseDurationMs + 20_000 ? 'failed election to renew leadership on lease' : undefined));
  const identity = leaderIdentity();
  let work: Promise<void> = Promise.resolve();
  const electionClient = new RestClient({ ...o.base, userAgent: o.userAgent }, { qps: o.qps, burst: o.burst, contentType: 'application/json' });
  try {
    const elector = new LeaderElector(electionClient, {
      lock: le.lock,
      namespace: le.namespace,
      name: le.name,
      identity,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      logger: o.logger.child({ component: 'leaderelection' }),
      onNewLeader: (holder) => {
        if (holder !== identity) o.logger.info({ holder }, 'new leader elected');
        lastRenewOk = Date.now();
      },
      onStartedLeading: (signal) => {
        leading = true;
        lastRenewOk = Date.now();
        masterStatus.set({ name: le.name }, 1);
        work = o.lead(signal).catch((err: unknown) => o.logger.error({ err }, 'Stopped with an error while leading'));
      },
      onRenewed: () => {
        lastRenewOk = Date.now();
      },
      onStoppedLeading: () => {
        leading = false;
        masterStatus.set({ name: le.name }, 0);
      },
    });
    masterStatus.set({ name: le.name }, 0);
    await elector.run(o.signal);
    await work;
  } finally {
    electionClient.close();
  }
  if (o.signal.aborted) return 0;
  o.logger.error('leaderelection lost');
  return 1;
}
