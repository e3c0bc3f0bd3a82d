import { spawn } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { openSqliteStore } from '../../src/storage/sqlite/open-sqlite-store';
import { tempDir } from './fixtures/temp-store';

t.test('state, revisions and the compact revision survive a reopen; revisions are never reused', async (t) => {
  const file = path.join(tempDir(t), 'state.db');
  const first = await openSqliteStore(file);
  await first.create('/d/a', 'a1');
  await first.update('/d/a', 'a2');
  await first.create('/d/b', 'b1');
  await first.delete('/d/b');
  await first.compact(4);
  await first.close();

  const second = await openSqliteStore(file);
  t.teardown(() => second.close());
  t.equal(second.currentRevision(), 4, 'the newest revision, though its log row was compacted away');
  t.equal(second.compactRevision(), 4);
  t.same(await second.get('/d/a'), { key: '/d/a', value: 'a2', modRevision: 2, createRevision: 1 });
  t.equal(await second.get('/d/b'), undefined);
  const next = await second.create('/d/b', 'b2');
  t.equal(next.modRevision, 5, 'the next revision follows the highest ever handed out');
  const events: number[] = [];
  const errors: string[] = [];
  const w = second.watch({ prefix: '/d/', afterRevision: 4, onEvent: (e) => events.push(e.revision), onError: (e) => errors.push(e.code) });
  await new Promise((r) => setTimeout(r, 50));
  w.cancel();
  t.same(events, [5], 'a watch right after reopen replays from the log');
  t.same(errors, []);
});

t.test('kill -9 right after acknowledged writes loses none of them', async (t) => {
  const file = path.join(tempDir(t), 'state.db');
  const child = spawn(
    process.execPath,
    [path.join(__dirname, 'fixtures', 'ack-writer-main.js'), file],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const acked = new Map<string, number>();
  let buffered = '';
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const [rev, key] = line.split(' ');
      if (key) acked.set(key, Number(rev));
    }
    // kill in the middle of the stream, while writes are still in flight
    if (acked.size >= 300 && child.exitCode === null && !child.killed) child.kill('SIGKILL');
  });
  t.equal(await exited, 'SIGKILL');
  t.ok(acked.size >= 300, `${acked.size} writes acknowledged before the kill`);

  const store = await openSqliteStore(file);
  t.teardown(() => store.close());
  let lost = 0;
  for (const [key, rev] of acked) {
    const kv = await store.get(key);
    if (kv?.value !== `value-${key}` || kv.modRevision !== rev) lost++;
  }
  t.equal(lost, 0, 'every acknowledged write is in the database');
  t.ok(store.currentRevision() >= Math.max(...acked.values()));
  const listed = await store.list('/kill/');
  t.same(
    listed.items.map((kv) => kv.modRevision).sort((a, b) => a - b),
    Array.from({ length: store.currentRevision() }, (_, i) => i + 1),
    'committed revisions have no gaps',
  );
});
