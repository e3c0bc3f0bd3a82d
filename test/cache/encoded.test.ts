import t from 'tap';
import { isShared, jsonText, listJsonText, markShared, memoized, watchFrame } from '../../src/cache/encoded';
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

t.test('listJsonText equals JSON.stringify and reuses item text', async (t) => {
  const items = [markShared({ metadata: { name: 'a' }, data: { k: 'v"\u2028' } }), markShared({ metadata: { name: 'b' } })];
  const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' }, items };
  t.equal(listJsonText(list), JSON.stringify(list));
  t.equal(jsonText(items[0]), JSON.stringify(items[0]));
  // poison the memo: the list must splice the memoized text, proving it is reused
  memoized(items[1], 'application/json', () => 'X');
  t.equal(jsonText(items[1]), JSON.stringify(items[1]), 'already memoized before: unchanged');
  const fresh = markShared({ metadata: { name: 'c' } });
  memoized(fresh, 'application/json', () => '{"memo":true}');
  t.equal(listJsonText({ ...list, items: [fresh] }), '{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"7"},"items":[{"memo":true}]}');
  t.equal(listJsonText({ ...list, items: [] }), JSON.stringify({ ...list, items: [] }));
  t.equal(listJsonText({ items: [{ a: 1 }], kind: 'X' }), '{"items":[{"a":1}],"kind":"X"}', 'items not last: plain stringify');
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
