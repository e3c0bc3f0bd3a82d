import t from 'tap';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';
import { FlagError } from '../../src/options/types';

const config = (...argv: string[]) => apiServerConfig(parseOptions(apiServerOptionGroups, ['--data-dir', '/tmp/x', ...argv]));

t.test('--enable-priority-and-fairness: on by default, off on request', async (t) => {
  t.equal(config().enablePriorityAndFairness, true);
  t.equal(config('--enable-priority-and-fairness=false').enablePriorityAndFairness, false);
  const supported = apiServerOptionGroups.flatMap((g) => g.options).find((o) => o.name === 'enable-priority-and-fairness');
  t.equal(supported?.support, 'supported', 'marked as acted on');
});

t.test('APF needs seats: both limits 0 is refused, as kube refuses it', async (t) => {
  t.throws(
    () => config('--max-requests-inflight=0', '--max-mutating-requests-inflight=0'),
    new FlagError('--max-requests-inflight plus --max-mutating-requests-inflight must be positive when --enable-priority-and-fairness is true'),
  );
  t.equal(config('--max-requests-inflight=0', '--max-mutating-requests-inflight=0', '--enable-priority-and-fairness=false').maxRequestsInflight, 0);
});
