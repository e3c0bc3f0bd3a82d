/**
 * Full disk and read-only file system under the real server process:
 * - full disk (an 8 MiB tmpfs holding the data dir, filled with a filler file): writes get a 500
 *   InternalError Status naming the cause (as kube-apiserver answers etcd's "database space
 *   exceeded"), /readyz fails on etcd-readiness, reads still work, and once the filler is deleted the
 *   server recovers by itself (writes succeed, /readyz ok); integrity_check ok; nothing acknowledged lost.
 * - read-only (an ext4 loop file system with errors=remount-ro, switched read-only under the
 *   running server through ext4's trigger_fs_error): the same contract, except recovery, which needs
 *   the operator (the kernel keeps such a file system read-only until it is unmounted): after a
 *   restart on a healthy copy every acknowledged write is there and integrity_check is ok.
 * Mounting needs root; the tests skip with a message where it is not permitted.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { BallastServer, MAIN_JS, sleep } from './lib/server';
import type { Client } from './lib/client';

const built = fs.existsSync(MAIN_JS) ? false : 'run make build first';

function tryRun(cmd: string, args: string[]): string | undefined {
  try {
    execFileSync(cmd, args, { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `${cmd} ${args.join(' ')}: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
}

function integrity(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

const cm = (name: string, kb: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { blob: 'x'.repeat(kb * 1024) } });

async function readyz(client: Client): Promise<{ status: number; body: string }> {
  const r = await client.request('GET', '/readyz?verbose');
  return { status: r.status, body: r.body };
}

/** write until a write fails (the file system is full or read-only); returns acknowledged names and the failure */
async function writeUntilFailure(client: Client, prefix: string, kb: number, max: number) {
  const acked: string[] = [];
  for (let i = 0; i < max; i++) {
    const name = `${prefix}-${i}`;
    const r = await client.json('POST', '/api/v1/namespaces/default/configmaps', cm(name, kb));
    if (r.status === 201) acked.push(name);
    else return { acked, failure: r };
  }
  return { acked, failure: undefined };
}

t.test('full disk: 500 naming the cause, not ready, no corruption, recovers by itself', { skip: built }, async (t) => {
  const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-fulldisk-'));
  const cannot = tryRun('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]);
  if (cannot) {
    fs.rmSync(mnt, { recursive: true, force: true });
    t.plan(0, `cannot mount a tmpfs here (${cannot}); the full-disk test needs root`);
    return;
  }
  const dataDir = path.join(mnt, 'data');
  let server: BallastServer | undefined;
  t.teardown(async () => {
    await server?.kill('SIGKILL');
    tryRun('umount', ['-l', mnt]);
    fs.rmSync(mnt, { recursive: true, force: true });
  });
  server = await BallastServer.start({ dataDir });
  const client = () => server!.freshClient();
  const before = await writeUntilFailure(client(), 'before', 64, 5);
  t.equal(before.acked.length, 5, 'writes work on the fresh disk');

  // fill the disk
  const filler = path.join(mnt, 'filler');
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (err) {
    t.equal((err as NodeJS.ErrnoException).code, 'ENOSPC', 'the disk is full');
  } finally {
    fs.closeSync(fd);
  }

  // writes fail once the WAL has no room left (the first ones may still fit in WAL space already allocated)
  const during = await writeUntilFailure(client(), 'during', 256, 40);
  t.ok(during.failure, 'a write failed on the full disk');
  const st = during.failure!.body;
  t.equal(during.failure!.status, 500, 'the failed write is a 500');
  t.match(st, { kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError' }, 'as an InternalError Status');
  t.match(st.message, /storage is full/, `naming the cause: ${st.message}`);

  const notReady = await readyz(client());
  t.equal(notReady.status, 500, '/readyz fails');
  t.match(notReady.body, /\[-\]etcd-readiness failed/, 'on the etcd-readiness check');
  t.equal((await client().request('GET', '/livez')).status, 200, '/livez still ok (restarting would not help)');
  const list = await client().json('GET', '/api/v1/namespaces/default/configmaps');
  t.equal(list.status, 200, 'reads still work');

  // space comes back: the server recovers without a restart
  fs.rmSync(filler);
  const t0 = Date.now();
  let ready = await readyz(client());
  while (ready.status !== 200 && Date.now() - t0 < 15_000) {
    await sleep(200);
    ready = await readyz(client());
  }
  t.equal(ready.status, 200, `/readyz ok again ${Date.now() - t0} ms after the space came back`);
  const after = await writeUntilFailure(client(), 'after', 64, 5);
  t.equal(after.acked.length, 5, 'writes succeed again');

  const acked = [...before.acked, ...during.acked, ...after.acked];
  await server.kill('SIGTERM');
  t.equal(integrity(path.join(dataDir, 'state.db')), 'ok', 'integrity_check ok');
  await server.restart();
  const names = new Set((await client().json('GET', '/api/v1/namespaces/default/configmaps')).body.items.map((i: any) => i.metadata.name));
  t.same(acked.filter((n) => !names.has(n)), [], `all ${acked.length} acknowledged writes are there after a restart`);
});

t.test('read-only file system: 500 naming the cause, not ready, no corruption', { skip: built }, async (t) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-rofs-'));
  const img = path.join(work, 'fs.img');
  const mnt = path.join(work, 'mnt');
  fs.mkdirSync(mnt);
  fs.writeFileSync(img, Buffer.alloc(0));
  fs.truncateSync(img, 32 * 1024 * 1024);
  const cannot = tryRun('mkfs.ext4', ['-q', '-F', img]) ?? tryRun('mount', ['-o', 'loop,errors=remount-ro', img, mnt]);
  if (cannot) {
    fs.rmSync(work, { recursive: true, force: true });
    t.plan(0, `cannot loop-mount an ext4 file system here (${cannot}); the read-only test needs root and loop devices`);
    return;
  }
  const device = execFileSync('findmnt', ['-n', '-o', 'SOURCE', mnt], { encoding: 'utf8' }).trim();
  const trigger = `/sys/fs/ext4/${path.basename(device)}/trigger_fs_error`;
  let server: BallastServer | undefined;
  t.teardown(async () => {
    await server?.kill('SIGKILL');
    tryRun('umount', [mnt]);
    fs.rmSync(work, { recursive: true, force: true });
  });
  if (!fs.existsSync(trigger)) {
    t.plan(0, `${trigger} is missing (kernel without ext4 trigger_fs_error); cannot make the file system read-only under a running server`);
    return;
  }
  const dataDir = path.join(mnt, 'data');
  server = await BallastServer.start({ dataDir });
  const client = () => server!.freshClient();
  const before = await writeUntilFailure(client(), 'before', 16, 10);
  t.equal(before.acked.length, 10, 'writes work');

  // the kernel switches the file system to read-only, as after an I/O error with errors=remount-ro
  fs.writeFileSync(trigger, '1');
  const during = await writeUntilFailure(client(), 'during', 16, 20);
  t.ok(during.failure, 'a write failed on the read-only file system');
  t.equal(during.failure?.status, 500, 'a 500');
  t.match(during.failure?.body, { kind: 'Status', code: 500, reason: 'InternalError' }, 'as an InternalError Status');
  t.match(during.failure?.body.message, /read-only/, `naming the cause: ${during.failure?.body.message}`);
  const notReady = await readyz(client());
  t.equal(notReady.status, 500, '/readyz fails');
  t.match(notReady.body, /\[-\]etcd-readiness failed/, 'on the etcd-readiness check');
  t.equal((await client().json('GET', '/api/v1/namespaces/default/configmaps')).status, 200, 'reads still work');

  // the operator's repair: stop, unmount, check, mount again, start
  await server.kill('SIGTERM');
  t.notOk(tryRun('umount', [mnt]), 'unmounted');
  tryRun('e2fsck', ['-f', '-y', img]);
  t.notOk(tryRun('mount', ['-o', 'loop', img, mnt]), 'mounted again read-write');
  t.equal(integrity(path.join(dataDir, 'state.db')), 'ok', 'integrity_check ok');
  await server.restart();
  const names = new Set((await client().json('GET', '/api/v1/namespaces/default/configmaps')).body.items.map((i: any) => i.metadata.name));
  const acked = [...before.acked, ...during.acked];
  t.same(acked.filter((n) => !names.has(n)), [], `all ${acked.length} acknowledged writes are there`);
  t.equal((await client().json('POST', '/api/v1/namespaces/default/configmaps', cm('after', 1))).status, 201, 'writes work after the repair');
});
