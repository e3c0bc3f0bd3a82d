import http from 'node:http';
import t from 'tap';
import type { FakeWatch } from './fake-registry';
import { sampleObject } from './fake-registry';
import { startTestServer } from './helpers';
import type { TestServer } from './helpers';
import { errors } from '../../src/api/errors';

const NS = '/apis/test.ballast.io/v1/namespaces/ns1/widgets';

/** a streaming reader of newline-delimited frames */
function lineReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  return {
    async next(): Promise<unknown | undefined> {
      for (;;) {
        const nl = buf.indexOf('\n');
        if (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          return JSON.parse(line);
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buf += decoder.decode(value, { stream: true });
      }
    },
  };
}

async function waitFor(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function openWatch(s: TestServer, path: string, headers: Record<string, string> = {}, signal?: AbortSignal) {
  const before = s.registry.watches.length;
  const res = await fetch(s.url + path, { headers, signal });
  await waitFor(() => s.registry.watches.length > before);
  return { res, watch: s.registry.watches[s.registry.watches.length - 1] as FakeWatch, lines: lineReader(res) };
}

t.test('events are streamed one JSON line each, as they happen', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const ac = new AbortController();
  const { res, watch, lines } = await openWatch(s, `${NS}?watch=true&resourceVersion=5`, {}, ac.signal);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/json');
  t.equal(res.headers.get('transfer-encoding'), 'chunked');
  const a = sampleObject('a');
  t.equal(watch.sink.send({ type: 'ADDED', object: a }), true);
  t.same(await lines.next(), { type: 'ADDED', object: a }, 'the first event arrives before any other is sent');
  watch.sink.send({ type: 'MODIFIED', object: { ...a, spec: { size: 9 } } });
  watch.sink.send({ type: 'BOOKMARK', object: { kind: 'Widget', apiVersion: 'test.ballast.io/v1', metadata: { resourceVersion: '12' } } });
  t.same(await lines.next(), { type: 'MODIFIED', object: { ...a, spec: { size: 9 } } });
  t.same(await lines.next(), { type: 'BOOKMARK', object: { kind: 'Widget', apiVersion: 'test.ballast.io/v1', metadata: { resourceVersion: '12' } } });
  watch.sink.send({ type: 'DELETED', object: a });
  t.same(await lines.next(), { type: 'DELETED', object: a });
  t.equal(watch.cancelled, false);
  ac.abort();
});

t.test('events sent while the registry starts the watch are delivered first', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  s.registry.initialEvents = [
    { type: 'ADDED', object: sampleObject('a') },
    { type: 'ADDED', object: sampleObject('b') },
  ];
  const ac = new AbortController();
  const { watch, lines } = await openWatch(s, `${NS}?watch=1`, {}, ac.signal);
  t.match(await lines.next(), { type: 'ADDED', object: { metadata: { name: 'a' } } });
  t.match(await lines.next(), { type: 'ADDED', object: { metadata: { name: 'b' } } });
  watch.sink.send({ type: 'ADDED', object: sampleObject('c') });
  t.match(await lines.next(), { type: 'ADDED', object: { metadata: { name: 'c' } } });
  ac.abort();
});

t.test('timeoutSeconds ends the stream cleanly and cancels the registry watch', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const started = Date.now();
  const { res, watch, lines } = await openWatch(s, `${NS}?watch=true&timeoutSeconds=1`);
  watch.sink.send({ type: 'ADDED', object: sampleObject('a') });
  t.match(await lines.next(), { type: 'ADDED' });
  t.equal(await lines.next(), undefined, 'the stream ends');
  const elapsed = Date.now() - started;
  t.ok(elapsed >= 900 && elapsed < 3000, `ended after about a second (${elapsed} ms)`);
  t.equal(res.status, 200);
  t.equal(watch.cancelled, true);
  t.equal(watch.sink.send({ type: 'ADDED', object: sampleObject('late') }), false, 'the sink refuses events after the end');
});

t.test('without timeoutSeconds a watch lasts between minRequestTimeout and twice that', async (t) => {
  const s = await startTestServer({ options: { minRequestTimeoutSeconds: 1 } });
  t.teardown(() => s.close());
  const started = Date.now();
  const { watch, lines } = await openWatch(s, `${NS}?watch=true`);
  t.equal(await lines.next(), undefined);
  const elapsed = Date.now() - started;
  t.ok(elapsed >= 950 && elapsed < 2500, `ended within [1s, 2s) (${elapsed} ms)`);
  t.equal(watch.cancelled, true);
});

t.test('a client disconnect cancels the registry watch', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const ac = new AbortController();
  const { watch } = await openWatch(s, `${NS}?watch=true`, {}, ac.signal);
  t.equal(watch.cancelled, false);
  ac.abort();
  await waitFor(() => watch.cancelled);
  t.equal(watch.cancelled, true);
  t.equal(watch.sink.send({ type: 'ADDED', object: sampleObject('a') }), false);
});

t.test('the registry ending the watch (after an ERROR event) ends the stream', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const { watch, lines } = await openWatch(s, `${NS}?watch=true&resourceVersion=1`);
  const gone = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (40)', reason: 'Expired', code: 410 };
  watch.sink.send({ type: 'ERROR', object: gone as never });
  watch.sink.end();
  t.same(await lines.next(), { type: 'ERROR', object: gone });
  t.equal(await lines.next(), undefined);
});

t.test('errors before the stream starts are a normal Status response', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  s.registry.failures.set('watch', errors.badRequest('unable to parse requirement: invalid label key'));
  const res = await fetch(`${s.url}${NS}?watch=true&labelSelector=%21%21`);
  t.equal(res.status, 400);
  t.equal(res.headers.get('content-type'), 'application/json');
  t.match(await res.json(), { kind: 'Status', reason: 'BadRequest', message: 'unable to parse requirement: invalid label key' });
});

t.test('Table watch: each event carries a one-row Table, headers only in the first', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const ac = new AbortController();
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  const { res, watch, lines } = await openWatch(s, `${NS}?watch=true&resourceVersion=105`, { Accept: accept }, ac.signal);
  t.equal(res.headers.get('content-type'), 'application/json;as=Table;v=v1;g=meta.k8s.io');
  watch.sink.send({ type: 'ADDED', object: sampleObject('a') });
  watch.sink.send({ type: 'MODIFIED', object: sampleObject('a', { spec: { size: 5 } }) });
  const first = (await lines.next()) as { type: string; object: any };
  t.equal(first.type, 'ADDED');
  t.equal(first.object.kind, 'Table');
  t.same(first.object.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Size', 'Color']);
  t.same(first.object.rows[0].cells, ['a', 3, 'blue']);
  t.equal(first.object.rows[0].object.kind, 'PartialObjectMetadata');
  t.same(first.object.metadata, { resourceVersion: '7' });
  const second = (await lines.next()) as { type: string; object: any };
  t.equal(second.type, 'MODIFIED');
  t.equal(second.object.columnDefinitions, null, 'kube omits headers after the first event');
  t.same(second.object.rows[0].cells, ['a', 5, 'blue']);
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 410, reason: 'Expired', message: 'gone' };
  watch.sink.send({ type: 'ERROR', object: status as never });
  t.same(await lines.next(), { type: 'ERROR', object: status }, 'ERROR Status objects are not converted');
  ac.abort();
});

t.test('a client that does not read gets an ERROR 410 and the stream closes', async (t) => {
  const s = await startTestServer({ options: { maxWatchBufferedBytes: 64 * 1024 } });
  t.teardown(() => s.close());
  let response: http.IncomingMessage | undefined;
  const req = http.get(`${s.url}${NS}?watch=true`, (res) => {
    response = res;
    res.pause(); // never read
  });
  t.teardown(() => req.destroy());
  await waitFor(() => response !== undefined && s.registry.watches.length === 1);
  const watch = s.registry.watches[0];
  const big = sampleObject('big', { data: 'x'.repeat(256 * 1024) });
  let accepted = 0;
  for (let i = 0; i < 400 && watch.sink.send({ type: 'ADDED', object: big }); i++) accepted++;
  t.ok(accepted < 400, `the sink refused events once the client fell behind (after ${accepted})`);
  t.equal(watch.cancelled, true, 'the registry watch was cancelled');
  // the client can still drain what was sent: the last frame is the ERROR
  const text = await new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    response!.on('data', (c: Buffer) => chunks.push(c));
    response!.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response!.resume();
  });
  const frames = text.trim().split('\n').map((l) => JSON.parse(l));
  t.equal(frames.length, accepted + 2, 'every accepted event, the one that overflowed, then the ERROR');
  t.match(frames[frames.length - 1], { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
});

t.test('shutdown ends open watches and fails readyz', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const { watch, lines } = await openWatch(s, `${NS}?watch=true`);
  s.shutdown();
  t.equal(await lines.next(), undefined, 'the stream ended');
  t.equal(watch.cancelled, true);
  const ready = await fetch(`${s.url}/readyz`);
  t.equal(ready.status, 500);
  t.match(await ready.text(), /\[-\]shutdown failed: reason withheld\nreadyz check failed/);
  const live = await fetch(`${s.url}/livez`);
  t.equal(live.status, 200, 'livez is unaffected');
});

t.test('watches are exempt from the request timeout and the in-flight limit', async (t) => {
  const s = await startTestServer({ options: { requestTimeoutSeconds: 1, maxRequestsInflight: 1 } });
  t.teardown(() => s.close());
  const ac = new AbortController();
  const w1 = await openWatch(s, `${NS}?watch=true`, {}, ac.signal);
  const w2 = await openWatch(s, `${NS}?watch=true`, {}, ac.signal);
  await new Promise((r) => setTimeout(r, 1300));
  w1.watch.sink.send({ type: 'ADDED', object: sampleObject('a') });
  t.match(await w1.lines.next(), { type: 'ADDED' }, 'still open after the request timeout');
  t.equal(w2.res.status, 200);
  const list = await fetch(`${s.url}${NS}`);
  t.equal(list.status, 200, 'open watches do not count against the limit');
  ac.abort();
});
