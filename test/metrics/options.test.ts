import t from 'tap';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';

const parse = (...args: string[]) => parseOptions(apiServerOptionGroups, args);

t.test('--profiling and the storage metric poll options are acted on', async (t) => {
  const defaults = apiServerConfig(parse('--data-dir=/x'));
  t.equal(defaults.profiling, true, 'profiling is on by default, as in kube');
  t.equal(defaults.countMetricPollPeriodMs, 60_000);
  t.equal(defaults.dbMetricPollIntervalMs, 30_000);
  const c = apiServerConfig(parse('--data-dir=/x', '--profiling=false', '--etcd-count-metric-poll-period=0', '--etcd-db-metric-poll-interval=5s'));
  t.equal(c.profiling, false);
  t.equal(c.countMetricPollPeriodMs, 0);
  t.equal(c.dbMetricPollIntervalMs, 5000);
  t.same(c.ignoredFlags, [], 'none of them is reported as ignored');
  t.same(apiServerConfig(parse('--data-dir=/x', '--contention-profiling')).ignoredFlags, ['contention-profiling'], 'contention profiling has no Node equivalent');
});

t.test('negative poll periods are flag errors', async (t) => {
  t.throws(() => apiServerConfig(parse('--data-dir=/x', '--etcd-count-metric-poll-period=-1s')), /etcd-count-metric-poll-period/);
});
