import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { containerIdForLogs, parsePodLogRequest, serveContainerLogs, type LogSource } from '../../src/nodeagent/server/container-logs';
import { parseCriLine, readContainerLog } from '../../src/nodeagent/server/log-reader';
import type { Pod } from '../../src/nodeagent/types';

function tmpdir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-logs-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const line = (time: string, stream: string, tag: string, text: string) => `${time} ${stream} ${tag} ${text}\n`;

async function read(file: string, opts: Parameters<typeof readContainerLog>[1]): Promise<string> {
  let out = '';
  await readContainerLog(file, opts, (s) => (out += s));
  return out;
}

t.test('CRI line parsing', async (t) => {
  t.same(parseCriLine('2024-01-01T00:00:00.123456789Z stdout F hello world'), { time: '2024-01-01T00:00:00.123456789Z', stream: 'stdout', partial: false, text: 'hello world' });
  t.same(parseCriLine('2024-01-01T00:00:00Z stderr P part'), { time: '2024-01-01T00:00:00Z', stream: 'stderr', partial: true, text: 'part' });
  t.same(parseCriLine('2024-01-01T00:00:00Z stdout F'), { time: '2024-01-01T00:00:00Z', stream: 'stdout', partial: false, text: '' });
  t.equal(parseCriLine('garbage'), undefined);
});

t.test('reading a file: partial lines joined, prefix stripped or kept, tail, since, limit', async (t) => {
  const dir = tmpdir(t);
  const file = path.join(dir, '0.log');
  fs.writeFileSync(
    file,
    line('2024-01-01T00:00:01.000000001Z', 'stdout', 'F', 'one') +
      line('2024-01-01T00:00:02Z', 'stdout', 'P', 'tw') +
      line('2024-01-01T00:00:02.5Z', 'stdout', 'F', 'o') +
      line('2024-01-01T00:00:03Z', 'stderr', 'F', 'three') +
      line('2024-01-01T00:00:04Z', 'stdout', 'F', 'four'),
  );
  t.equal(await read(file, { follow: false, timestamps: false }), 'one\ntwo\nthree\nfour\n');
  t.equal(await read(file, { follow: false, timestamps: true }), '2024-01-01T00:00:01.000000001Z one\n2024-01-01T00:00:02Z two\n2024-01-01T00:00:03Z three\n2024-01-01T00:00:04Z four\n');
  t.equal(await read(file, { follow: false, timestamps: false, tailLines: 2 }), 'three\nfour\n');
  t.equal(await read(file, { follow: false, timestamps: false, tailLines: 0 }), '');
  t.equal(await read(file, { follow: false, timestamps: false, sinceMs: Date.parse('2024-01-01T00:00:03Z') }), 'three\nfour\n');
  t.equal(await read(file, { follow: false, timestamps: false, limitBytes: 6 }), 'one\ntw');
});

t.test('following: new lines as the file grows, a rotation, the end with the instance', async (t) => {
  const dir = tmpdir(t);
  const file = path.join(dir, '0.log');
  fs.writeFileSync(file, line('2024-01-01T00:00:01Z', 'stdout', 'F', 'first'));
  let running = true;
  let out = '';
  const done = readContainerLog(file, { follow: true, timestamps: false, running: async () => running, pollIntervalMs: 20, checkIntervalMs: 50 }, (s) => (out += s));
  const until = async (want: string) => {
    for (let i = 0; i < 200 && !out.includes(want); i++) await new Promise((r) => setTimeout(r, 10));
    t.ok(out.includes(want), `saw ${JSON.stringify(want)}`);
  };
  await until('first\n');
  fs.appendFileSync(file, line('2024-01-01T00:00:02Z', 'stdout', 'P', 'sec'));
  await new Promise((r) => setTimeout(r, 80));
  t.notOk(out.includes('sec'), 'a partial line waits for its end');
  fs.appendFileSync(file, line('2024-01-01T00:00:02Z', 'stdout', 'F', 'ond'));
  await until('second\n');
  // the log manager renames the file and the runtime reopens a new one at the path
  fs.renameSync(file, `${file}.20240101-000003`);
  fs.writeFileSync(file, line('2024-01-01T00:00:04Z', 'stdout', 'F', 'after rotation'));
  await until('after rotation\n');
  fs.appendFileSync(file, line('2024-01-01T00:00:05Z', 'stdout', 'F', 'last words'));
  running = false;
  await done;
  t.equal(out, 'first\nsecond\nafter rotation\nlast words\n', 'ends once the instance stopped and the file is drained');
});

function pod(status: Record<string, unknown>): Pod {
  return { metadata: { name: 'web', namespace: 'ns', uid: 'u1' }, spec: { containers: [{ name: 'app' }] }, status: { containerStatuses: [{ name: 'app', ...status }] } } as Pod;
}

t.test('which instance: kubelet validateContainerLogStatus', async (t) => {
  const running = pod({ containerID: 'containerd://new', state: { running: {} }, lastState: { terminated: { containerID: 'containerd://old' } }, restartCount: 1 });
  t.equal(containerIdForLogs(running, 'app', false), 'containerd://new');
  t.equal(containerIdForLogs(running, 'app', true), 'containerd://old');
  const fresh = pod({ containerID: 'containerd://new', state: { running: {} }, restartCount: 0 });
  t.throws(() => containerIdForLogs(fresh, 'app', true), { message: 'previous terminated container "app" in pod "web" not found', code: 400 });
  const crashing = pod({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { containerID: 'containerd://dead' } } });
  t.equal(containerIdForLogs(crashing, 'app', false), 'containerd://dead');
  t.throws(() => containerIdForLogs(pod({ state: { waiting: { reason: 'ErrImagePull' } } }), 'app', false), { message: `container "app" in pod "web" is waiting to start: image can't be pulled` });
  t.throws(() => containerIdForLogs(pod({ state: { waiting: { reason: 'ContainerCreating' } } }), 'app', false), { message: 'container "app" in pod "web" is waiting to start: ContainerCreating' });
  t.throws(() => containerIdForLogs(pod({}), 'app', false), { message: 'container "app" in pod "web" is waiting to start - no logs yet' });
});

t.test('query validation: kube PodLogOptions', async (t) => {
  const q = (s: string) => new URLSearchParams(s);
  t.same(parsePodLogRequest(q('follow=true&tailLines=3&timestamps=1')), { follow: true, previous: false, timestamps: true, tailLines: 3, limitBytes: undefined, sinceSeconds: undefined });
  t.throws(() => parsePodLogRequest(q('tailLines=-1')), { code: 422, message: '{"message": "Invalid request."}' });
  t.throws(() => parsePodLogRequest(q('limitBytes=0')), { code: 422 });
  t.throws(() => parsePodLogRequest(q('sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z')), { code: 422 });
  t.throws(() => parsePodLogRequest(q('tailLines=abc')), { code: 400, message: 'Unable to decode query.' });
});

t.test('serveContainerLogs: previous instance, sinceSeconds, 404s', async (t) => {
  const dir = tmpdir(t);
  const now = new Date().toISOString();
  fs.writeFileSync(path.join(dir, '0.log'), line('2020-01-01T00:00:00Z', 'stdout', 'F', 'old run'));
  fs.writeFileSync(path.join(dir, '1.log'), line('2020-01-01T00:00:00Z', 'stdout', 'F', 'long ago') + line(now, 'stdout', 'F', 'just now'));
  const source: LogSource = { containerLog: async (id) => ({ old: { path: path.join(dir, '0.log'), running: false }, new: { path: path.join(dir, '1.log'), running: true } })[id] };
  const p = pod({ containerID: 'containerd://new', state: { running: {} }, lastState: { terminated: { containerID: 'containerd://old' } }, restartCount: 1 });
  const serve = async (query: string, thePod: Pod | null = p, container = 'app') => {
    let out = '';
    await serveContainerLogs({ pod: thePod ?? undefined, namespace: 'ns', podName: 'web', containerName: container, query: new URLSearchParams(query), source, start: () => undefined, write: (s) => (out += s) });
    return out;
  };
  t.equal(await serve('previous=true'), 'old run\n');
  t.equal(await serve(''), 'long ago\njust now\n');
  t.equal(await serve('sinceSeconds=60'), 'just now\n');
  await t.rejects(serve('', null), { code: 404, message: 'pod "web" does not exist' });
  await t.rejects(serve('', p, 'nope'), { code: 404, message: 'container "nope" not found in pod "web"' });
});
