import t from 'tap';
import { goSliceStable } from '../../../src/api/patch/go-stable-sort';

t.test('with a strict order it is a stable sort (insertion blocks and symmetric merges)', async (t) => {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const n of [0, 1, 2, 19, 20, 21, 40, 41, 63, 100, 257]) {
    const items = Array.from({ length: n }, (_, i) => ({ key: Math.floor(rand() * 10), i }));
    const expected = [...items].sort((a, b) => a.key - b.key);
    t.same(goSliceStable([...items], (a, b) => a.key < b.key), expected, `n=${n}`);
  }
});

t.test('an always-true less moves every element like Go insertion sort does', async (t) => {
  // Go's insertion sort with less() always true reverses a block
  t.same(goSliceStable([1, 2, 3, 4], () => true), [4, 3, 2, 1]);
});
