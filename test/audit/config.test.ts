import t from 'tap';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';

const config = (...argv: string[]) => apiServerConfig(parseOptions(apiServerOptionGroups, argv), {});

t.test('defaults: log blocking, webhook batch (spec 2, part 6)', async (t) => {
  const a = config().audit;
  t.equal(a.policyFile, undefined);
  t.equal(a.log.path, undefined);
  t.match(a.log, { format: 'json', maxAge: 0, maxBackup: 0, maxSize: 0, compress: false });
  t.match(a.log.settings, { mode: 'blocking', version: 'audit.k8s.io/v1', truncateEnabled: false, truncateMaxEventSize: 102400 });
  t.match(a.webhook, { initialBackoffMs: 10_000 });
  t.match(a.webhook.settings, { mode: 'batch', bufferSize: 10000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttleEnable: true, throttleQps: 10, throttleBurst: 15 });
});

t.test('flags reach the config; the audit flags count as acted on', async (t) => {
  const c = config('--audit-policy-file=p.yaml', '--audit-log-path=-', '--audit-log-format=legacy', '--audit-log-maxsize=5', '--audit-log-mode=batch',
    '--audit-log-batch-max-size=7', '--audit-log-batch-max-wait=2s', '--audit-webhook-initial-backoff=1s', '--audit-webhook-version=audit.k8s.io/v1beta1');
  t.match(c.audit.policyFile, /\/p\.yaml$/);
  t.equal(c.audit.log.path, '-');
  t.match(c.audit.log, { format: 'legacy', maxSize: 5 });
  t.match(c.audit.log.settings, { mode: 'batch', maxBatchSize: 7, maxBatchWaitMs: 2000 });
  t.equal(c.audit.webhook.initialBackoffMs, 1000);
  t.equal(c.audit.webhook.settings.version, 'audit.k8s.io/v1beta1');
  t.same(c.ignoredFlags, []);
  t.same(config('--audit-dynamic-configuration').ignoredFlags, ['audit-dynamic-configuration'], 'removed in kube 1.19: accepted, does nothing');
});

t.test('bad values are flag errors', async (t) => {
  t.throws(() => config('--audit-log-mode=sometimes'), /must be one of batch, blocking, blocking-strict/);
  t.throws(() => config('--audit-webhook-version=audit.k8s.io/v2'), /must be one of/);
  t.throws(() => config('--audit-webhook-batch-max-size=0'), /--audit-webhook-batch-max-size: 0, must be greater than 0/);
  t.throws(() => config('--audit-log-truncate-enabled', '--audit-log-truncate-max-event-size=20', '--audit-log-truncate-max-batch-size=10'), /must not be greater than/);
});
