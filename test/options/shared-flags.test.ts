import t from 'tap';
import { apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';
import { KUBE_COMPAT } from '../../src/server/version';

const parse = (...argv: string[]) => parseOptions(apiServerOptionGroups, argv);

t.test('--show-hidden-metrics-for-version takes only the previous minor release', async (t) => {
  const previous = `1.${Number(KUBE_COMPAT.minor) - 1}`;
  t.equal(parse(`--show-hidden-metrics-for-version=${previous}`).string('show-hidden-metrics-for-version'), previous);
  t.equal(parse().string('show-hidden-metrics-for-version') ?? '', '');
  t.throws(() => parse('--show-hidden-metrics-for-version=1.20'), { message: new RegExp(`must be omitted or have the value '${previous.replace('.', '\\.')}'`) });
  t.throws(() => parse(`--show-hidden-metrics-for-version=${KUBE_COMPAT.major}.${KUBE_COMPAT.minor}`), { name: 'FlagError' });
});
