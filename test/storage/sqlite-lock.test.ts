import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { StoreInUseError, lockStore, openStore } from '../../src/storage/open';
import { tempDir } from './fixtures/temp-store';

/** a child process holding the lock of file until it is killed */
async function lockingChild(t: Test, file: string, dataDir: string) {
  const child = spawn(process.execPath, ['--expose-gc', path.join(__dirname, 'fixtures', 'lock-holder-main.js'), file, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  t.teardown(() => {
    child.kill('SIGKILL');
    return exited;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => d.includes('locked') && resolve());
    child.on('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return { pid: child.pid!, kill9: () => (child.kill('SIGKILL'), exited) };
}

t.test('a second lock on one database is refused at once, naming the holder; release frees it', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'state.db');
  const lock = lockStore(`sqlite://${file}`, { dataDir: dir });
  t.equal(lock.database, file);
  const started = Date.now();
  const err = t.throws(() => lockStore(file, { dataDir: '/elsewhere' })) as unknown as StoreInUseError;
  t.type(err, StoreInUseError);
  t.ok(Date.now() - started < 2000, 'no busy wait');
  t.equal(err.database, file);
  t.equal(err.holder?.pid, process.pid);
  t.equal(err.holder?.dataDir, dir);
  t.notMatch(err.message, /\n/, 'one line');
  t.match(err.message, `the database ${file} is in use by another Ballast API server (pid ${process.pid}`);
  t.match(err.message, `data dir ${dir}`);
  t.notOk(fs.existsSync(file), 'nothing is written to the database itself');
  lock.release();
  lock.release();
  const again = lockStore(file);
  t.teardown(() => again.release());
  t.pass('taken again after release');
});

t.test('the lock does not keep the store itself from opening in the holder', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'state.db');
  const lock = lockStore(file);
  const store = await openStore(file);
  await store.create('/a', 'x');
  await store.close();
  lock.release();
  t.pass();
});

t.test('another process holding the lock is named; after kill -9 the lock is free again', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'state.db');
  const holder = await lockingChild(t, file, dir);
  const err = t.throws(() => lockStore(file)) as unknown as StoreInUseError;
  t.type(err, StoreInUseError);
  t.equal(err.holder?.pid, holder.pid);
  t.match(err.message, `pid ${holder.pid}`);
  t.match(err.message, `data dir ${dir}`);
  await holder.kill9();
  t.ok(fs.existsSync(`${file}.lock.json`), 'the dead holder left its record behind');
  const lock = lockStore(file, { dataDir: dir });
  t.teardown(() => lock.release());
  t.equal(JSON.parse(fs.readFileSync(`${file}.lock.json`, 'utf8')).pid, process.pid, 'the record names the new holder');
});
