import { oneOf, option } from './define';
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

function backendOptions(prefix: 'audit-log' | 'audit-webhook', d: BackendDefaults): OptionSpec[] {
  const what = prefix === 'audit-log' ? 'the audit log' : 'the audit webhook';
  return [
    option(`${prefix}-mode`, 'string', `how events reach ${what}: batch (asynchronous), blocking or blocking-strict`, {
      default: d.mode,
      validate: oneOf('batch', 'blocking', 'blocking-strict'),
    }),
    option(`${prefix}-batch-buffer-size`, 'int', 'events buffered before batching (batch mode)', { default: '10000' }),
    option(`${prefix}-batch-max-size`, 'int', 'largest batch', { default: d.batchMaxSize }),
    option(`${prefix}-batch-max-wait`, 'duration', 'time after which an unfilled batch is written', { default: d.batchMaxWait }),
    option(`${prefix}-batch-throttle-enable`, 'bool', 'throttle batches', { default: d.throttleEnable }),
    option(`${prefix}-batch-throttle-qps`, 'float', 'average batches per second at most', { default: d.throttleQps }),
    option(`${prefix}-batch-throttle-burst`, 'int', 'batches sent at once when the throttle was idle', { default: d.throttleBurst }),
    option(`${prefix}-truncate-enabled`, 'bool', 'truncate oversized events and batches'),
    option(`${prefix}-truncate-max-batch-size`, 'int', 'bytes; larger batches are split', { default: '10485760' }),
    option(`${prefix}-truncate-max-event-size`, 'int', 'bytes; larger events lose request and response bodies, then are dropped', { default: '102400' }),
    option(`${prefix}-version`, 'string', 'API group/version of the written events', { default: 'audit.k8s.io/v1' }),
  ];
}

/** audit options (spec 2, part 6); Ballast writes no audit events yet */
export const auditOptions: OptionGroup = Object.freeze({
  title: 'Audit flags',
  options: [
    option('audit-policy-file', 'string', 'audit policy file'),
    option('audit-log-path', 'string', 'file receiving audit events; "-" means standard output'),
    option('audit-log-format', 'string', 'json, or legacy (one text line per event)', { default: 'json', validate: oneOf('json', 'legacy') }),
    option('audit-log-maxage', 'int', 'days old audit log files are kept'),
    option('audit-log-maxbackup', 'int', 'number of old audit log files kept'),
    option('audit-log-maxsize', 'int', 'megabytes before the audit log is rotated'),
    option('audit-log-compress', 'bool', 'gzip rotated audit log files'),
    ...backendOptions('audit-log', { mode: 'blocking', batchMaxSize: '1' }),
    option('audit-webhook-config-file', 'string', 'kubeconfig-format file of the audit webhook'),
    option('audit-webhook-initial-backoff', 'duration', 'wait before retrying the first failed webhook call', { default: '10s' }),
    ...backendOptions('audit-webhook', {
      mode: 'batch',
      batchMaxSize: '400',
      batchMaxWait: '30s',
      throttleEnable: 'true',
      throttleQps: '10',
      throttleBurst: '15',
    }),
  ],
});
