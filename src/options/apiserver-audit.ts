import path from 'node:path';
import type { BackendSettings } from '../audit/backend';
import type { AuditConfig } from '../audit/config';
import { oneOf, option } from './define';
import type { ParsedOptions } from './parse';
import { FlagError } from './types';
import type { OptionGroup, OptionSpec } from './types';

/** per-back-end defaults of the options both audit back ends share (spec 2, part 6) */
interface BackendDefaults {
  mode: string;
  batchMaxSize: string;
  batchMaxWait?: string;
  throttleEnable?: string;
  throttleQps?: string;
  throttleBurst?: string;
}

const auditVersions = ['audit.k8s.io/v1', 'audit.k8s.io/v1beta1'];

function backendOptions(prefix: 'audit-log' | 'audit-webhook', d: BackendDefaults): OptionSpec[] {
  const what = prefix === 'audit-log' ? 'the audit log' : 'the audit webhook';
  const supported = true;
  return [
    option(`${prefix}-mode`, 'string', `how events reach ${what}: batch (queued, written asynchronously), blocking (requests wait for the write) or blocking-strict (as blocking; a lost RequestReceived event fails the request)`, {
      default: d.mode,
      validate: oneOf('batch', 'blocking', 'blocking-strict'),
      supported,
    }),
    option(`${prefix}-batch-buffer-size`, 'int', 'events queued before batching (batch mode); further events are dropped', { default: '10000', supported }),
    option(`${prefix}-batch-max-size`, 'int', 'largest batch (batch mode)', { default: d.batchMaxSize, supported }),
    option(`${prefix}-batch-max-wait`, 'duration', 'time after which an unfilled batch is written (batch mode)', { default: d.batchMaxWait, supported }),
    option(`${prefix}-batch-throttle-enable`, 'bool', 'throttle batches (batch mode)', { default: d.throttleEnable, supported }),
    option(`${prefix}-batch-throttle-qps`, 'float', 'average batches per second at most (batch mode, throttled)', { default: d.throttleQps, supported }),
    option(`${prefix}-batch-throttle-burst`, 'int', 'batches sent at once when the throttle was idle (batch mode, throttled)', { default: d.throttleBurst, supported }),
    option(`${prefix}-truncate-enabled`, 'bool', 'truncate oversized events and split oversized batches', { supported }),
    option(`${prefix}-truncate-max-batch-size`, 'int', 'bytes; larger batches are split', { default: '10485760', supported }),
    option(`${prefix}-truncate-max-event-size`, 'int', 'bytes; larger events lose their request and response objects, then are dropped if still too large', { default: '102400', supported }),
    option(`${prefix}-version`, 'string', `API group/version of the events written to ${what}`, { default: 'audit.k8s.io/v1', validate: oneOf(...auditVersions), supported }),
  ];
}

/** audit options (spec 2, part 6) */
export const auditOptions: OptionGroup = Object.freeze({
  title: 'Audit flags',
  options: [
    option('audit-policy-file', 'string', 'audit policy file (audit.k8s.io/v1 or v1beta1 Policy); without it nothing is audited', { supported: true }),
    option('audit-log-path', 'string', 'file receiving audit events; "-" means standard output', { supported: true }),
    option('audit-log-format', 'string', 'json (one Event a line), or legacy (one text line per event)', { default: 'json', validate: oneOf('json', 'legacy'), supported: true }),
    option('audit-log-maxage', 'int', 'days rotated audit log files are kept (0: no limit)', { supported: true }),
    option('audit-log-maxbackup', 'int', 'number of rotated audit log files kept (0: all)', { supported: true }),
    option('audit-log-maxsize', 'int', 'megabytes before the audit log is rotated (0: 100)', { supported: true }),
    option('audit-log-compress', 'bool', 'gzip rotated audit log files', { supported: true }),
    ...backendOptions('audit-log', { mode: 'blocking', batchMaxSize: '1' }),
    option('audit-webhook-config-file', 'string', 'kubeconfig-format file of the audit webhook (server, CA, client certificate or token)', { supported: true }),
    option('audit-webhook-initial-backoff', 'duration', 'wait before retrying the first failed webhook call (then 1.5 times longer, 5 attempts in all)', { default: '10s', supported: true }),
    ...backendOptions('audit-webhook', {
      mode: 'batch',
      batchMaxSize: '400',
      batchMaxWait: '30s',
      throttleEnable: 'true',
      throttleQps: '10',
      throttleBurst: '15',
    }),
    // removed from kube in 1.19 (dynamic audit sinks); accepted so old command lines still start
    option('audit-dynamic-configuration', 'bool', 'does nothing: dynamic audit configuration was removed from Kubernetes in 1.19', { hidden: true }),
  ],
});

function positive(parsed: ParsedOptions, name: string, fallback: number): number {
  const v = parsed.number(name) ?? fallback;
  if (v <= 0) throw new FlagError(`invalid value for --${name}: ${v}, must be greater than 0`);
  return v;
}

function settings(parsed: ParsedOptions, prefix: 'audit-log' | 'audit-webhook'): BackendSettings {
  const mode = (parsed.string(`${prefix}-mode`) ?? 'blocking') as BackendSettings['mode'];
  const batch = mode === 'batch';
  const throttleEnable = parsed.bool(`${prefix}-batch-throttle-enable`);
  const s: BackendSettings = {
    mode,
    bufferSize: batch ? positive(parsed, `${prefix}-batch-buffer-size`, 10000) : 10000,
    maxBatchSize: batch ? positive(parsed, `${prefix}-batch-max-size`, 1) : 1,
    maxBatchWaitMs: parsed.number(`${prefix}-batch-max-wait`) ?? 0,
    throttleEnable,
    throttleQps: batch && throttleEnable ? positive(parsed, `${prefix}-batch-throttle-qps`, 10) : 0,
    throttleBurst: batch && throttleEnable ? positive(parsed, `${prefix}-batch-throttle-burst`, 15) : 0,
    truncateEnabled: parsed.bool(`${prefix}-truncate-enabled`),
    truncateMaxBatchSize: positive(parsed, `${prefix}-truncate-max-batch-size`, 10485760),
    truncateMaxEventSize: positive(parsed, `${prefix}-truncate-max-event-size`, 102400),
    version: parsed.string(`${prefix}-version`) ?? 'audit.k8s.io/v1',
  };
  if (s.truncateEnabled && s.truncateMaxEventSize > s.truncateMaxBatchSize) {
    throw new FlagError(`--${prefix}-truncate-max-event-size must not be greater than --${prefix}-truncate-max-batch-size`);
  }
  return s;
}

/** the audit settings of the parsed flags; throws FlagError on inconsistent values */
export function auditConfig(parsed: ParsedOptions): AuditConfig {
  const file = (name: string) => {
    const v = parsed.string(name);
    return v ? path.resolve(v) : undefined;
  };
  const logPath = parsed.string('audit-log-path') || undefined;
  const nonNegative = (name: string) => {
    const v = parsed.number(name) ?? 0;
    if (v < 0) throw new FlagError(`--${name} must be 0 or greater`);
    return v;
  };
  return Object.freeze({
    policyFile: file('audit-policy-file'),
    log: Object.freeze({
      path: logPath === '-' ? '-' : logPath && path.resolve(logPath),
      format: parsed.string('audit-log-format') === 'legacy' ? 'legacy' : 'json',
      maxAge: nonNegative('audit-log-maxage'),
      maxBackup: nonNegative('audit-log-maxbackup'),
      maxSize: nonNegative('audit-log-maxsize'),
      compress: parsed.bool('audit-log-compress'),
      settings: settings(parsed, 'audit-log'),
    }),
    webhook: Object.freeze({
      configFile: file('audit-webhook-config-file'),
      initialBackoffMs: parsed.number('audit-webhook-initial-backoff') ?? 10_000,
      settings: settings(parsed, 'audit-webhook'),
    }),
  });
}
