import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import zlib from 'node:zlib';
import t from 'tap';
import type { Test } from 'tap';
import { createLogSink } from '../../src/audit/log-sink';
import type { AuditEvent } from '../../src/audit/types';

const ev = (id: string, pad = ''): AuditEvent => ({
  kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: id, stage: 'ResponseComplete', requestURI: '/api', verb: 'get',
  user: { username: 'u' }, annotations: pad ? { pad } : undefined, requestReceivedTimestamp: '2026-01-02T03:04:05.000001Z', stageTimestamp: '2026-01-02T03:04:05.000002Z',
});

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-log-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('json: one event a line, file mode 0600', async (t) => {
  const file = path.join(tmp(t), 'sub', 'audit.log');
  const sink = createLogSink({ path: file, format: 'json', maxAge: 0, maxBackup: 0, maxSize: 0, compress: false });
  await sink.write([ev('1'), ev('2')]);
  await sink.close();
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  t.same(lines.map((l) => JSON.parse(l).auditID), ['1', '2']);
  t.equal(fs.statSync(file).mode & 0o777, 0o600);
});

t.test('legacy to standard output ("-")', async (t) => {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (c) => chunks.push(String(c)));
  const sink = createLogSink({ path: '-', format: 'legacy', maxAge: 0, maxBackup: 0, maxSize: 0, compress: false, stdout: out });
  await sink.write([ev('x')]);
  t.match(chunks.join(''), /^2026-01-02T03:04:05\.000001Z AUDIT: id="x" stage="ResponseComplete" .*response="<deferred>"\n$/);
});

t.test('rotation past maxsize keeps maxbackup files, compressed', async (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'audit.log');
  const sink = createLogSink({ path: file, format: 'json', maxAge: 0, maxBackup: 1, maxSize: 1, compress: true });
  const pad = 'p'.repeat(200 * 1024);
  // ~1.2 MB per round: three rotations
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 6; i++) await sink.write([ev(`${round}-${i}`, pad)]);
    await new Promise((r) => setTimeout(r, 300));
  }
  await new Promise((r) => setTimeout(r, 500));
  await sink.close();
  const rotated = fs.readdirSync(dir).filter((n) => n !== 'audit.log');
  t.ok(rotated.length >= 1 && rotated.length <= 1 + 1, `at most maxbackup rotated files kept (got ${rotated.join(', ')})`);
  const gz = rotated.filter((n) => /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$/.test(n));
  t.ok(gz.length >= 1, "lumberjack's names, gzipped");
  const text = zlib.gunzipSync(fs.readFileSync(path.join(dir, gz[gz.length - 1]))).toString('utf8');
  t.match(JSON.parse(text.split('\n')[0]), { kind: 'Event' });
  t.ok(fs.statSync(file).size < 2 * 1024 * 1024);
});
