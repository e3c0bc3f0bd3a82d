/**
 * The process runtime's shim (its containerd-shim): a small detached Node process per container
 * that starts the container's command, writes its stdout and stderr to the container's log file in
 * the CRI log format, and records how the command ended. Because the shim, not the agent, holds the
 * pipes and waits for the command, an agent that restarts finds its containers still running and
 * learns their exit codes afterwards from the files the shim leaves in the container's directory:
 *
 *   spec.json   written by the agent: command, env, cwd, logPath, maxLineBytes, and for attach
 *               stdin, stdinOnce, tty, script (util-linux script's path, '' when none), attachName
 *               and attachSecret
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
 * Attach: the shim listens on the abstract Unix socket `attachName` (Linux; no path length limit,
 * nothing to clean up). A client first sends one line of JSON, `{"secret","stdin"}`; with the right
 * secret it then gets the command's output as frames (1 byte: 1 stdout, 2 stderr, 3 exit; 4 bytes
 * big-endian length; the bytes; exit carries `{"exitCode"}`), and, when it asked for stdin and the
 * container has one, what it sends goes to the command's stdin; its end closes that stdin when
 * stdinOnce. A container with stdin keeps an open pipe; one with tty runs under `script`, on a
 * pseudo-terminal whose output is all stdout.
 *
 * Plain JavaScript in a string, run with `node -e`, so that it runs alike from src/ (tsx) and dist/.
 */
export const SHIM_SOURCE = String.raw`
'use strict';
const fs = require('fs');
const os = require('os');
const cp = require('child_process');
const path = require('path');
const net = require('net');
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
    broadcast(stream === 'stdout' ? 1 : 2, chunk);
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

const clients = new Set();
function broadcast(type, bytes) {
  if (clients.size === 0) return;
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeUInt32BE(bytes.length, 1);
  const frame = Buffer.concat([head, bytes]);
  for (const client of clients) client.write(frame);
}
function quote(word) {
  return /^[A-Za-z0-9_./=:,+-]+$/.test(word) ? word : "'" + word.replace(/'/g, "'\\''") + "'";
}

let argv = spec.command;
const tty = Boolean(spec.tty && spec.script);
if (tty) argv = [spec.script, '-q', '-f', '-e', '-c', 'exec ' + spec.command.map(quote).join(' '), '/dev/null'];
// a terminal reads its input from a pipe that stays open, as does a container with stdin
const stdinMode = spec.stdin || tty ? 'pipe' : 'ignore';
let child;
try {
  child = cp.spawn(argv[0], argv.slice(1), { cwd: spec.cwd, env: spec.env, detached: true, stdio: [stdinMode, 'pipe', 'pipe'] });
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
if (child.stdin) child.stdin.on('error', () => {});

if (spec.attachName) {
  // half-open: a client's end of input must not end its output
  const server = net.createServer({ allowHalfOpen: true }, (conn) => {
    let pending = Buffer.alloc(0);
    let accepted = false;
    let wantsStdin = false;
    conn.on('error', () => {});
    conn.on('data', (chunk) => {
      if (accepted) {
        if (wantsStdin && child.stdin && !child.stdin.destroyed) child.stdin.write(chunk);
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      const nl = pending.indexOf(10);
      if (nl === -1) { if (pending.length > 4096) conn.destroy(); return; }
      let hello;
      try { hello = JSON.parse(pending.subarray(0, nl).toString()); } catch (err) { conn.destroy(); return; }
      if (!hello || hello.secret !== spec.attachSecret) { conn.destroy(); return; }
      accepted = true;
      wantsStdin = Boolean(hello.stdin && spec.stdin);
      clients.add(conn);
      if (exit !== undefined) { conn.end(exitFrame()); return; }
      const rest = pending.subarray(nl + 1);
      if (rest.length > 0 && wantsStdin && child.stdin) child.stdin.write(rest);
    });
    conn.on('end', () => {
      if (wantsStdin && spec.stdinOnce && child.stdin) child.stdin.end();
      if (!accepted) conn.end();
    });
    conn.on('close', () => clients.delete(conn));
  });
  server.on('error', () => {});
  server.listen(spec.attachName);
  server.unref();
}
function exitFrame() {
  const bytes = Buffer.from(JSON.stringify({ exitCode: exit.exitCode }));
  const head = Buffer.alloc(5);
  head[0] = 3;
  head.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([head, bytes]);
}

let open = 2;
let exit;
function finish() {
  if (exit === undefined || open > 0) return;
  writeJson('exit.json', exit);
  if (clients.size === 0) process.exit(0);
  for (const client of clients) client.end(exitFrame());
  // the attached clients get the exit frame before the shim goes
  setTimeout(() => process.exit(0), 200);
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
