/**
 * The process runtime's shim (its containerd-shim): a small detached Node process per container
 * that starts the container's command, writes its stdout and stderr to the container's log file in
 * the CRI log format, and records how the command ended. Because the shim, not the agent, holds the
 * pipes and waits for the command, an agent that restarts finds its containers still running and
 * learns their exit codes afterwards from the files the shim leaves in the container's directory:
 *
 *   spec.json   written by the agent: command, env, cwd, logPath, maxLineBytes
 *   pid.json    { pid, startedAt } once the command runs (the command leads its own process group)
 *   error.json  { message } when the command could not start (not found, not executable ...)
 *   exit.json   { exitCode, signal, finishedAt } when it ended (128 + signal number when killed)
 *
 * Log lines are `<RFC3339Nano> <stream> <F|P> <text>` as containerd writes them: a line longer than
 * maxLineBytes is cut into `P` (partial) records ended by an `F` record; text left without a newline
 * when the stream ends is written as `F`. SIGUSR1 reopens the log file (after the agent rotated it).
 * The shim ignores SIGTERM, SIGINT and SIGHUP: the agent signals the command's process group, never
 * the shim's.
 *
 * Plain JavaScript in a string, run with `node -e`, so that it runs alike from src/ (tsx) and dist/.
 */
export const SHIM_SOURCE = String.raw`
'use strict';
const fs = require('fs');
const os = require('os');
const cp = require('child_process');
const path = require('path');
const dir = process.argv[1];
const spec = JSON.parse(fs.readFileSync(path.join(dir, 'spec.json'), 'utf8'));
const maxLine = spec.maxLineBytes;

function writeJson(name, value) {
  const file = path.join(dir, name);
  fs.writeFileSync(file + '.tmp', JSON.stringify(value));
  fs.renameSync(file + '.tmp', file);
}
function nowNs() {
  return (BigInt(Date.now()) * 1000000n + (process.hrtime.bigint() % 1000000n)).toString();
}
function timestamp() {
  const ns = process.hrtime.bigint() % 1000000n;
  const iso = new Date().toISOString();
  let frac = (iso.slice(20, 23) + ns.toString().padStart(6, '0')).replace(/0+$/, '');
  return iso.slice(0, 19) + (frac === '' ? '' : '.' + frac) + 'Z';
}

let fd = fs.openSync(spec.logPath, 'a');
process.on('SIGUSR1', () => {
  try { const next = fs.openSync(spec.logPath, 'a'); fs.closeSync(fd); fd = next; } catch (err) { /* keep the old file */ }
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => {});

function record(stream, tag, bytes) {
  fs.writeSync(fd, Buffer.concat([Buffer.from(timestamp() + ' ' + stream + ' ' + tag + ' '), bytes, Buffer.from('\n')]));
}
function pump(readable, stream, done) {
  let pending = Buffer.alloc(0);
  readable.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const nl = pending.indexOf(10);
      if (nl === -1) {
        while (pending.length >= maxLine) { record(stream, 'P', pending.subarray(0, maxLine)); pending = pending.subarray(maxLine); }
        return;
      }
      let line = pending.subarray(0, nl);
      pending = pending.subarray(nl + 1);
      while (line.length > maxLine) { record(stream, 'P', line.subarray(0, maxLine)); line = line.subarray(maxLine); }
      record(stream, 'F', line);
    }
  });
  readable.on('close', () => { if (pending.length > 0) record(stream, 'F', pending); pending = Buffer.alloc(0); done(); });
}

function notFound(command) {
  return 'exec: "' + command + '": executable file not found in $PATH';
}

let child;
try {
  child = cp.spawn(spec.command[0], spec.command.slice(1), { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
} catch (err) {
  writeJson('error.json', { message: String(err && err.message) });
  process.exit(1);
}
child.on('error', (err) => {
  const message = err.code === 'ENOENT' ? notFound(spec.command[0]) : err.code === 'EACCES' ? 'exec: "' + spec.command[0] + '": permission denied' : err.message;
  writeJson('error.json', { message });
  process.exit(1);
});
child.on('spawn', () => writeJson('pid.json', { pid: child.pid, startedAt: nowNs() }));

let open = 2;
let exit;
function finish() {
  if (exit === undefined || open > 0) return;
  writeJson('exit.json', exit);
  process.exit(0);
}
pump(child.stdout, 'stdout', () => { open--; finish(); });
pump(child.stderr, 'stderr', () => { open--; finish(); });
child.on('exit', (code, signal) => {
  const exitCode = code !== null ? code : 128 + (os.constants.signals[signal] || 0);
  exit = { exitCode, signal: signal || '', finishedAt: nowNs() };
  // a background process of the command may keep the pipes open: do not wait for it long
  setTimeout(() => { open = 0; finish(); }, 2000).unref();
  finish();
});
`;
