import t from 'tap';
import { decodeShared, isShared, jsonBytes, lazyList, listJsonBytes, markShared, memoized, watchFrame } from '../../src/cache/encoded';
import { jsonCodec } from '../../src/http/codecs/json';

t.test('memoized encodes a shared value once and never memoizes an unshared one', async (t) => {
  const shared = markShared({ a: 1 });
  let calls = 0;
  const make = () => {
    calls++;
    return Buffer.from('x');
  };
  const first = memoized(shared, 'm', make);
  t.equal(memoized(shared, 'm', make), first, 'the same Buffer comes back');
  t.equal(calls, 1);
  memoized(shared, 'other/type', make);
  t.equal(calls, 2, 'one encoding per media type');
  const plain = { a: 1 };
  memoized(plain, 'm', make);
  memoized(plain, 'm', make);
  t.equal(calls, 4, 'unshared values are encoded every time');
  t.notOk(isShared(plain));
  t.same(Object.keys(shared), ['a'], 'the marks are not enumerable');
  t.equal(JSON.stringify(shared), '{"a":1}');
  t.notOk(isShared(structuredClone(shared)), 'a copy is not shared');
});

t.test('listJsonBytes equals JSON.stringify and reuses item bytes', async (t) => {
  const items = [markShared({ metadata: { name: 'a' }, data: { k: 'v"\u2028' } }), markShared({ metadata: { name: 'b' } })];
  const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' }, items };
  t.equal(listJsonBytes(list).toString(), JSON.stringify(list));
  t.equal(listJsonBytes(list, '\n').toString(), JSON.stringify(list) + '\n');
  t.equal(jsonBytes(items[0]).toString(), JSON.stringify(items[0]));
  // poison the memo: the list must splice the memoized bytes, proving they are reused
  memoized(items[1], 'application/json', () => Buffer.from('X'));
  t.equal(jsonBytes(items[1]).toString(), JSON.stringify(items[1]), 'already memoized before: unchanged');
  const fresh = markShared({ metadata: { name: 'c' } });
  memoized(fresh, 'application/json', () => Buffer.from('{"memo":true}'));
  t.equal(listJsonBytes({ ...list, items: [fresh] }).toString(), '{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"7"},"items":[{"memo":true}]}');
  t.equal(listJsonBytes({ ...list, items: [] }).toString(), JSON.stringify({ ...list, items: [] }));
  t.equal(listJsonBytes({ items: [{ a: 1 }], kind: 'X' }).toString(), '{"items":[{"a":1}],"kind":"X"}', 'items not last: plain stringify');
  t.equal(listJsonBytes('s').toString(), '"s"');
  t.equal(jsonCodec.encode(list, { pretty: false }).toString(), JSON.stringify(list) + '\n', 'the JSON codec uses it');
  t.equal(jsonCodec.encode(list, { pretty: true }).toString(), JSON.stringify(list, null, 2) + '\n');
});

t.test('watchFrame: one frame per shared event, byte for byte the codec frame', async (t) => {
  const object = markShared({ kind: 'ConfigMap', metadata: { name: 'a' } });
  const event = markShared({ type: 'ADDED', object });
  const frame = watchFrame(event, 'application/json', (v) => jsonCodec.encodeFrame!(v));
  t.equal(frame.toString(), jsonCodec.encodeFrame!({ type: 'ADDED', object }).toString());
  t.equal(watchFrame(event, 'application/json', () => Buffer.from('never')), frame, 'memoized on the event');
  const perWatcher = { type: 'DELETED', object };
  t.equal(watchFrame(perWatcher, 'application/json', () => Buffer.from('never')).toString(), '{"type":"DELETED","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}\n', 'an unshared event splices the shared object text');
  let other = 0;
  watchFrame(event, 'application/vnd.kubernetes.protobuf', () => Buffer.from([other++]));
  watchFrame(event, 'application/vnd.kubernetes.protobuf', () => Buffer.from([other++]));
  t.equal(other, 1, 'other media types are memoized too');
});

t.test('decodeShared: a shared object whose JSON is the bytes it came from', async (t) => {
  const bytes = Buffer.from('{"kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"\u00e9"}}');
  const obj = decodeShared(bytes) as { data: { k: string } };
  t.ok(isShared(obj));
  t.equal(obj.data.k, '\u00e9');
  t.equal(jsonBytes(obj), bytes, 'the same Buffer, not a re-encoding');
  t.not(decodeShared(bytes), obj, 'each decode is a new object');
});

t.test('lazyList: bytes stay bytes for JSON, decode once when items are read', async (t) => {
  const a = Buffer.from('{"metadata":{"name":"a"}}');
  const b = markShared({ metadata: { name: 'b' } });
  const make = () => lazyList({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' } }, [a, b]);
  const expected = '{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}';
  const list = make();
  t.same(Object.keys(list), ['apiVersion', 'kind', 'metadata', 'items'], 'items is last and enumerable');
  t.equal(listJsonBytes(list).toString(), expected);
  t.equal(JSON.stringify(make()), expected, 'plain JSON.stringify reads the items');
  const items = list.items;
  t.same(items, [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }]);
  t.equal(list.items, items, 'decoded once');
  t.ok(isShared(items[0]), 'decoded items are shared (read-only)');
  t.equal(items[1], b, 'objects pass through');
  t.equal(listJsonBytes(list).toString(), expected, 'after decoding, the same bytes');
  const other = make();
  other.items = [b];
  t.equal(listJsonBytes(other).toString(), '{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"b"}}]}', 'assigned items win');
  t.same(structuredClone(make()).items, [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }], 'a copy carries the decoded items');
  t.equal(listJsonBytes(lazyList({ kind: 'L' }, [])).toString(), '{"kind":"L","items":[]}');
});

t.test('JSON lists of more than 500 items stream in chunks, byte for byte the whole encoding', async (t) => {
  const items = Array.from({ length: 1200 }, (_, i) => (i % 2 ? markShared({ metadata: { name: `cm-${i}` }, data: { k: 'x'.repeat(1000) } }) : { metadata: { name: `cm-${i}` } }));
  const sources = items.map((o, i) => (i % 3 === 0 ? Buffer.from(JSON.stringify(o)) : o));
  const list = lazyList({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '3' } }, sources);
  const whole = jsonCodec.encode(list, { pretty: false });
  t.equal(whole.toString(), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '3' }, items }) + '\n');
  const stream = jsonCodec.encodeStream!(list, { pretty: false });
  t.ok(stream, 'a long list streams');
  const chunks: Buffer[] = [];
  for await (const c of stream!) chunks.push(c as Buffer);
  t.ok(chunks.length > 1, `in chunks (${chunks.length})`);
  t.equal(Buffer.concat(chunks).toString(), whole.toString());
  t.equal(jsonCodec.encodeStream!({ ...list, items: items.slice(0, 500) }, { pretty: false }), undefined, '500 items or fewer: whole');
  t.equal(jsonCodec.encodeStream!(list, { pretty: true }), undefined, 'pretty output: whole');
  t.equal(jsonCodec.encodeStream!({ kind: 'Status' }, { pretty: false }), undefined, 'not a list');
  const shared = decodeShared(Buffer.from('{"a":1}'));
  t.equal(jsonCodec.encode(shared, { pretty: false }).toString(), '{"a":1}\n', 'a shared object: its bytes and a newline');
});
