import t from 'tap';
import { formatLabels, humanDuration } from '../../../src/api/kinds/table-format';
import { selectorString } from '../../../src/api/kinds/label-selector';

t.test("ages are formatted like kube's HumanDuration", async (t) => {
  const s = 1000;
  const cases: Array<[number, string]> = [
    [-5 * s, '<invalid>'],
    [-1 * s, '0s'],
    [5 * s, '5s'],
    [119 * s, '119s'],
    [200 * s, '3m20s'],
    [300 * s, '5m'],
    [30 * 60 * s, '30m'],
    [5 * 3600 * s + 3 * 60 * s, '5h3m'],
    [10 * 3600 * s, '10h'],
    [52 * 3600 * s, '2d4h'],
    [10 * 86400 * s, '10d'],
    [800 * 86400 * s, '2y70d'],
    [3000 * 86400 * s, '8y'],
  ];
  for (const [ms, want] of cases) t.equal(humanDuration(ms), want, `${ms}ms`);
});

t.test('labels and selectors print sorted', async (t) => {
  t.equal(formatLabels({ b: '2', a: '1' }), 'a=1,b=2');
  t.equal(formatLabels({}), '<none>');
  t.equal(
    selectorString({ matchLabels: { z: '1' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['y', 'x'] }, { key: 'b', operator: 'DoesNotExist' }] }),
    'a in (x,y),!b,z=1',
  );
});
