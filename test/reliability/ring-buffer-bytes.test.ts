/** The watch buffer is bounded in bytes as well as in events: large objects cannot pile up in memory. */
import t from 'tap';
import { RingBuffer } from '../../src/storage/revlog/ring-buffer';
import type { StoreEvent } from '../../src/storage/store';

const ev = (revision: number, size: number): StoreEvent => ({ type: 'MODIFIED', key: '/k', revision, value: 'v'.repeat(size), prevValue: 'p'.repeat(size), createRevision: 1 });

t.test('the oldest events are dropped past maxBytes; the rest stays gap-free', async (t) => {
  const ring = new RingBuffer({ capacity: 1000, startRevision: 0, maxBytes: 10_010 });
  for (let r = 1; r <= 100; r++) ring.push(ev(r, 1000));
  // each event weighs ~2000: at most 5 fit
  t.ok(ring.bytes <= 10_010, `bytes held ${ring.bytes}`);
  t.equal(ring.size, 5);
  t.equal(ring.lastRevision, 100);
  t.equal(ring.startRevision, 95, 'older revisions are no longer covered (watches from there replay the log)');
  t.same(ring.since(95).map((e) => e.revision), [96, 97, 98, 99, 100]);
  t.notOk(ring.covers(94));
});

t.test('a single event larger than maxBytes is still kept', async (t) => {
  const ring = new RingBuffer({ capacity: 10, startRevision: 0, maxBytes: 100 });
  ring.push(ev(1, 1000));
  ring.push(ev(2, 1000));
  t.equal(ring.size, 1);
  t.same(ring.since(1).map((e) => e.revision), [2]);
});

t.test('the event count bound still applies', async (t) => {
  const ring = new RingBuffer({ capacity: 3, startRevision: 0 });
  for (let r = 1; r <= 10; r++) ring.push(ev(r, 10));
  t.same(ring.since(0).map((e) => e.revision), [8, 9, 10]);
  t.equal(ring.bytes, 3 * (20 + 2));
});
