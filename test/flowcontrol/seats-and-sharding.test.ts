import t from 'tap';
import { concurrencyLimits } from '../../src/flowcontrol/seats';
import { dealHand, hashFlow } from '../../src/flowcontrol/shuffle-sharding';

t.test('seats: ceil(server limit * shares / sum of shares)', async (t) => {
  const limits = concurrencyLimits(600, [
    { name: 'catch-all', shares: 5 },
    { name: 'global-default', shares: 20 },
    { name: 'workload-low', shares: 100 },
  ]);
  t.equal(limits.get('catch-all'), 24);
  t.equal(limits.get('global-default'), 96);
  t.equal(limits.get('workload-low'), 480);
  const tiny = concurrencyLimits(2, [{ name: 'a', shares: 1 }, { name: 'b', shares: 1000 }]);
  t.equal(tiny.get('a'), 1, 'rounded up: a level with shares always has a seat');
  t.equal(tiny.get('b'), 2);
});

t.test('flow hash: deterministic, SHA-256 based, separates schema and distinguisher', async (t) => {
  t.equal(hashFlow('catch-all', 'alice'), hashFlow('catch-all', 'alice'));
  t.not(hashFlow('catch-all', 'alice'), hashFlow('catch-all', 'bob'));
  t.not(hashFlow('ab', 'c'), hashFlow('a', 'bc'), 'the NUL separator keeps the parts apart');
  // sha256("a\0b") begins 59 b2 71 ae 1b bc b1 d3 (sha256sum); read little-endian
  t.equal(hashFlow('a', 'b'), 0xd3b1bc1bae71b259n);
});

t.test('shuffle sharding deals distinct cards from the hash digits', async (t) => {
  // 7 = 1 + 3*2 in radix (4, 3): digits 3, 1 -> cards 3, then the second of the remaining [0,1,2] = 1
  t.same(dealHand(7n, 4, 2), [3, 1]);
  t.same(dealHand(0n, 4, 3), [0, 1, 2]);
  t.same(dealHand(5n, 8, 1), [5]);
  for (let h = 0n; h < 500n; h += 7n) {
    const hand = dealHand(hashFlow('fs', String(h)), 64, 8);
    t.equal(new Set(hand).size, 8);
    t.ok(hand.every((c) => c >= 0 && c < 64));
    t.same(dealHand(hashFlow('fs', String(h)), 64, 8), hand, 'same flow, same hand');
  }
  t.same(dealHand(123n, 3, 8).sort(), [0, 1, 2], 'a hand never exceeds the deck');
});
