/**
 * The atomic writer as kube's: files under a timestamped directory, `..data` swapped in one rename,
 * visible names as symlinks through `..data`, removed keys gone, modes applied, paths validated.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { AtomicWriter, type Payload } from '../../src/nodeagent/volumes/atomic-writer';

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atomic-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'vol');
}

const payload = (entries: Record<string, [string, number]>): Payload => new Map(Object.entries(entries).map(([k, [d, m]]) => [k, { data: Buffer.from(d), mode: m }]));

t.test('first write: ..data points at a timestamped directory, names link through it', async (t) => {
  const dir = tmp(t);
  t.equal(new AtomicWriter(dir).write(payload({ a: ['one', 0o644], 'sub/b': ['two', 0o400] })), true);
  const ts = fs.readlinkSync(path.join(dir, '..data'));
  t.match(ts, /^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.\d+$/);
  t.equal(fs.readlinkSync(path.join(dir, 'a')), '..data/a');
  t.equal(fs.readlinkSync(path.join(dir, 'sub')), '..data/sub');
  t.equal(fs.readFileSync(path.join(dir, 'sub/b'), 'utf8'), 'two');
  t.equal(fs.statSync(path.join(dir, 'a')).mode & 0o777, 0o644);
  t.equal(fs.statSync(path.join(dir, 'sub/b')).mode & 0o777, 0o400);
  t.equal(fs.statSync(path.join(dir, ts)).mode & 0o777, 0o755);
});

t.test('an update swaps ..data, removes keys no longer there and the old directory', async (t) => {
  const dir = tmp(t);
  const w = new AtomicWriter(dir);
  w.write(payload({ a: ['one', 0o644], b: ['bee', 0o644] }));
  const first = fs.readlinkSync(path.join(dir, '..data'));
  // a reader holding the old file sees old contents; a new open sees the new ones at once
  const held = fs.openSync(path.join(dir, 'a'), 'r');
  t.equal(w.write(payload({ a: ['uno', 0o600], c: ['see', 0o644] })), true);
  const second = fs.readlinkSync(path.join(dir, '..data'));
  t.not(second, first);
  t.equal(fs.readFileSync(held, 'utf8'), 'one');
  fs.closeSync(held);
  t.equal(fs.readFileSync(path.join(dir, 'a'), 'utf8'), 'uno');
  t.equal(fs.statSync(path.join(dir, 'a')).mode & 0o777, 0o600, 'the mode changes too');
  t.notOk(fs.existsSync(path.join(dir, 'b')), 'a removed key disappears');
  t.notOk(fs.existsSync(path.join(dir, first)), 'the old data directory is gone');
  t.same(fs.readdirSync(dir).sort(), ['..data', second, 'a', 'c'].sort());
});

t.test('the same payload again writes nothing', async (t) => {
  const dir = tmp(t);
  const w = new AtomicWriter(dir);
  w.write(payload({ a: ['one', 0o644] }));
  const first = fs.readlinkSync(path.join(dir, '..data'));
  t.equal(w.write(payload({ a: ['one', 0o644] })), false);
  t.equal(fs.readlinkSync(path.join(dir, '..data')), first);
  t.equal(w.write(payload({ a: ['one', 0o600] })), true, 'a mode change alone is a change');
});

t.test('an empty payload leaves only ..data', async (t) => {
  const dir = tmp(t);
  const w = new AtomicWriter(dir);
  w.write(payload({ a: ['one', 0o644] }));
  w.write(new Map());
  t.same(fs.readdirSync(dir).filter((n) => !n.startsWith('..')), []);
});

t.test('paths are validated', async (t) => {
  const w = new AtomicWriter(tmp(t));
  t.throws(() => w.write(payload({ '/abs': ['x', 0o644] })), /must be relative path/);
  t.throws(() => w.write(payload({ 'a/../b': ['x', 0o644] })), /must not contain '\.\.'/);
  t.throws(() => w.write(payload({ '..hidden': ['x', 0o644] })), /must not start with '\.\.'/);
});
