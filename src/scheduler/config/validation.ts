/**
 * kube 1.20's ValidateKubeSchedulerConfiguration: every error, in kube's order and wording, so the
 * start-up line names the offending field.
 */
import { isIP } from 'node:net';
import { isQualifiedName } from '../../api/validation/names';
import { parseDuration } from '../../options/duration';
import { duplicate, GoText, invalid, required } from './field-errors';
import { validateArgs } from './plugin-args';
import { splitHostPort } from './defaults';
import type { Extender, KubeSchedulerConfiguration, KubeSchedulerProfile } from './types';

function leaderElectionErrors(le: KubeSchedulerConfiguration['leaderElection']): string[] {
  if (!le.leaderElect) return [];
  const errs: string[] = [];
  const lease = parseDuration(le.leaseDuration);
  const renew = parseDuration(le.renewDeadline);
  const retry = parseDuration(le.retryPeriod);
  if (lease <= 0) errs.push(invalid('leaderElection.leaseDuration', new GoText(le.leaseDuration), 'must be greater than zero'));
  if (renew <= 0) errs.push(invalid('leaderElection.renewDeadline', new GoText(le.renewDeadline), 'must be greater than zero'));
  if (retry <= 0) errs.push(invalid('leaderElection.retryPeriod', new GoText(le.retryPeriod), 'must be greater than zero'));
  if (lease <= renew) errs.push(invalid('leaderElection.leaseDuration', new GoText(le.renewDeadline), 'LeaseDuration must be greater than RenewDeadline'));
  if (le.resourceLock === '') errs.push(invalid('leaderElection.resourceLock', le.resourceLock, 'resourceLock is required'));
  if (le.resourceNamespace === '') errs.push(invalid('leaderElection.resourceNamespace', le.resourceNamespace, 'resourceNamespace is required'));
  if (le.resourceName === '') errs.push(invalid('leaderElection.resourceName', le.resourceName, 'resourceName is required'));
  return errs;
}

function profileErrors(path: string, profile: KubeSchedulerProfile): string[] {
  const errs: string[] = [];
  if (profile.schedulerName === '') errs.push(required(`${path}.schedulerName`));
  const seen = new Set<string>();
  (profile.pluginConfig ?? []).forEach((pc, i) => {
    const pcPath = `${path}.pluginConfig[${i}]`;
    if (seen.has(pc.name)) errs.push(duplicate(pcPath, pc.name));
    seen.add(pc.name);
    errs.push(...validateArgs(pc.name, pc.args ?? {}, `${pcPath}.args`));
  });
  return errs;
}

/** every profile must sort its queue alike: there is one queue */
function commonQueueSortErrors(profiles: readonly KubeSchedulerProfile[]): string[] {
  const canon = JSON.stringify(profiles[0].plugins?.queueSort ?? null);
  const errs: string[] = [];
  for (let i = 1; i < profiles.length; i++) {
    const cur = profiles[i].plugins?.queueSort;
    if (JSON.stringify(cur ?? null) !== canon) errs.push(invalid(`profiles[${i}].plugins.queueSort`, cur ?? null, 'has to match for all profiles'));
  }
  return errs;
}

/** apimachinery's IsValidSocketAddr */
export function socketAddrErrors(value: string): string[] {
  const split = splitHostPort(value);
  if (!split) return ['must be a valid socket address format, (e.g. 0.0.0.0:10254 or [::]:10254)'];
  const errs: string[] = [];
  if (isIP(split.host) === 0) errs.push('must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)');
  const port = Number(split.port);
  if (!/^\d+$/.test(split.port) || port < 1 || port > 65535) errs.push('must be between 1 and 65535, inclusive');
  return errs;
}

export function extenderErrors(extenders: readonly Extender[]): string[] {
  const errs: string[] = [];
  let binders = 0;
  const managed = new Set<string>();
  extenders.forEach((e, i) => {
    const path = `extenders[${i}]`;
    if (e.prioritizeVerb && (e.weight ?? 0) <= 0) errs.push(invalid(`${path}.weight`, e.weight ?? 0, 'must have a positive weight applied to it'));
    if (e.bindVerb) binders++;
    (e.managedResources ?? []).forEach((r, j) => {
      const rp = `${path}.managedResources[${j}].name`;
      const bad = isQualifiedName(r.name);
      for (const msg of bad) errs.push(invalid(rp, r.name, msg));
      // an extended resource name has a domain outside kubernetes.io and is no native resource
      if (bad.length === 0 && (!r.name.includes('/') || r.name.startsWith('kubernetes.io/') || r.name.startsWith('requests.'))) {
        errs.push(invalid(rp, r.name, `${r.name} is an invalid extended resource name`));
      }
      if (managed.has(r.name)) errs.push(invalid(rp, r.name, 'duplicate extender managed resource name'));
      managed.add(r.name);
    });
  });
  if (binders > 1) errs.push(invalid('extenders', `found ${binders} extenders implementing bind`, 'only one extender can implement bind'));
  return errs;
}

/** all errors of a defaulted configuration (empty when it is valid) */
export function validateConfiguration(cfg: KubeSchedulerConfiguration): string[] {
  const errs: string[] = [];
  if (cfg.clientConnection.burst < 0) errs.push(invalid('clientConnection.burst', cfg.clientConnection.burst, 'must be non-negative'));
  errs.push(...leaderElectionErrors(cfg.leaderElection));
  if (cfg.parallelism <= 0) errs.push(invalid('parallelism', cfg.parallelism, 'should be an integer value greater than zero'));
  if (cfg.profiles.length === 0) {
    errs.push(required('profiles'));
  } else {
    const names = new Map<string, number>();
    cfg.profiles.forEach((p, i) => {
      errs.push(...profileErrors(`profiles[${i}]`, p));
      if (names.has(p.schedulerName)) errs.push(duplicate(`profiles[${i}].schedulerName`, p.schedulerName));
      names.set(p.schedulerName, i);
    });
    errs.push(...commonQueueSortErrors(cfg.profiles));
  }
  // an empty address means that server is off (--port=0)
  if (cfg.healthzBindAddress) for (const m of socketAddrErrors(cfg.healthzBindAddress)) errs.push(invalid('healthzBindAddress', cfg.healthzBindAddress, m));
  if (cfg.metricsBindAddress) for (const m of socketAddrErrors(cfg.metricsBindAddress)) errs.push(invalid('metricsBindAddress', cfg.metricsBindAddress, m));
  if (cfg.percentageOfNodesToScore < 0 || cfg.percentageOfNodesToScore > 100) {
    errs.push(invalid('percentageOfNodesToScore', cfg.percentageOfNodesToScore, 'not in valid range [0-100]'));
  }
  if (cfg.podInitialBackoffSeconds <= 0) errs.push(invalid('podInitialBackoffSeconds', cfg.podInitialBackoffSeconds, 'must be greater than 0'));
  if (cfg.podMaxBackoffSeconds < cfg.podInitialBackoffSeconds) {
    errs.push(invalid('podMaxBackoffSeconds', cfg.podMaxBackoffSeconds, 'must be greater than or equal to PodInitialBackoffSeconds'));
  }
  errs.push(...extenderErrors(cfg.extenders ?? []));
  return errs;
}
