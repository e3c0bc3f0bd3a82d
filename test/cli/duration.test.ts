import t from 'tap';
import { formatDuration, parseDuration } from '../../src/options/duration';

t.test('parses Go durations into milliseconds', async (t) => {
  t.equal(parseDuration('5m0s'), 300_000);
  t.equal(parseDuration('1h0m0s'), 3_600_000);
  t.equal(parseDuration('8760h0m0s'), 8760 * 3_600_000);
  t.equal(parseDuration('300ms'), 300);
  t.equal(parseDuration('1.5h'), 5_400_000);
  t.equal(parseDuration('2s500ms'), 2500);
  t.equal(parseDuration('0'), 0);
  t.equal(parseDuration('-1m'), -60_000);
  t.equal(parseDuration('1500us'), 1.5);
});

t.test('refuses numbers without units and garbage', async (t) => {
  t.throws(() => parseDuration('10'), /missing unit/);
  t.throws(() => parseDuration('5x'), /invalid duration/);
  t.throws(() => parseDuration(''), /invalid duration/);
  t.throws(() => parseDuration('1m-2s'), /invalid duration/);
});

t.test('formats like Go', async (t) => {
  t.equal(formatDuration(0), '0s');
  t.equal(formatDuration(60_000), '1m0s');
  t.equal(formatDuration(300_000), '5m0s');
  t.equal(formatDuration(3_600_000), '1h0m0s');
  t.equal(formatDuration(1500), '1.5s');
  t.equal(formatDuration(250), '250ms');
  t.equal(parseDuration(formatDuration(5_430_250)), 5_430_250);
});
