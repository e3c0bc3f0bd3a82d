import t from 'tap';
import { boundedMemo } from '../../src/util/memo';

t.test('a bounded memo computes each key once and starts over when full', async (t) => {
  const computed: number[] = [];
  const square = boundedMemo(3, (n: number) => (computed.push(n), n * n));
  t.same([square(2), square(3), square(2), square(3)], [4, 9, 4, 9]);
  t.same(computed, [2, 3], 'remembered');
  square(4);
  square(5); // the memo held 3: it starts over with 5
  square(4);
  t.same(computed, [2, 3, 4, 5, 4], 'forgotten once full');
});
