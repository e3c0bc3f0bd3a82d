/**
 * What the process runtime's streaming server runs (src/nodeagent/streaming): exec as a host
 * process in the container's environment and working directory (as ExecSync), attach to the
 * container's stdio through its shim, port-forward to a port on 127.0.0.1 (every pod of this
 * runtime shares the host's network).
 *
 * A terminal (tty) comes from util-linux's `script`, which puts the command on a pseudo-terminal
 * without native modules: the command runs as `script -qfec '<sh words>' /dev/null`, its first
 * size set with stty before it starts (the client's first resize, waited for briefly) and later
 * ones applied with `stty -F <its tty>`; the terminal merges stderr into stdout, as a real one. A
 * host without `script` runs the command on pipes and says so on stderr. When the client goes
 * away before the command ends, the command's process group is killed; what an exec leaves running
 * in the background is killed when its container stops (killExecs).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { forwardTcp, type AttachStreamRequest, type CommandResult, type CommandStreams, type ExecStreamRequest, type StreamingBackend, type TerminalSize } from '../../streaming';
import { attachToShim } from './shim-attach';

/** the container as exec and attach need it; the runtime throws its CriError when it cannot run one */
export interface ProcessExecContext {
  env: Record<string, string>;
  cwd: string;
  /** the container's directory (the shim's files) */
  dir: string;
}

export interface ProcessStreamingTarget {
  execContext(containerId: string): ProcessExecContext;
  /** the pod's name and uid for port-forward's messages */
  sandboxNames(podSandboxId: string): { name: string; uid: string };
}

/** how long exec with a terminal waits for the client's first size before it starts */
const FIRST_SIZE_WAIT_MS = 500;

let scriptPath: string | null | undefined;
/** util-linux's script, when this host has it */
export function findScript(): string | undefined {
  if (scriptPath === undefined) {
    const found = spawnSync('sh', ['-c', 'command -v script'], { encoding: 'utf8' });
    scriptPath = found.status === 0 && found.stdout.trim() !== '' ? found.stdout.trim() : null;
  }
  return scriptPath ?? undefined;
}

/** a word the shell reads back as itself */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./=:,+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export class ProcessStreamingBackend implements StreamingBackend {
  readonly #target: ProcessStreamingTarget;
  /** each container's exec process groups, killed with it (what they leave in the background too) */
  readonly #execGroups = new Map<string, Set<number>>();

  /** kills what exec started in the container (its processes are not in the container's group) */
  killExecs(containerId: string): void {
    for (const pgid of this.#execGroups.get(containerId) ?? []) killGroup(pgid);
    this.#execGroups.delete(containerId);
  }

  constructor(target: ProcessStreamingTarget) {
    this.#target = target;
  }

  async exec(request: ExecStreamRequest, streams: CommandStreams): Promise<CommandResult> {
    const context = this.#target.execContext(request.containerId);
    const script = request.tty ? findScript() : undefined;
    let argv = request.cmd;
    let ttyFile: string | undefined;
    const env = { ...context.env };
    if (request.tty) env.TERM ??= 'xterm';
    if (request.tty && script === undefined) {
      streams.stderr?.write('the process runtime found no `script` (util-linux) for a terminal: running without one\r\n');
    }
    if (request.tty && script !== undefined) {
      const size = await streams.resize.first(FIRST_SIZE_WAIT_MS);
      ttyFile = path.join(os.tmpdir(), `ballast-exec-${process.pid}-${Math.random().toString(36).slice(2)}.tty`);
      const setup = [size ? `stty cols ${size.width} rows ${size.height} 2>/dev/null` : ':', `tty > ${shellQuote(ttyFile)} 2>/dev/null`];
      const line = `${setup.join('; ')}; exec ${request.cmd.map(shellQuote).join(' ')}`;
      argv = [script, '-q', '-f', '-e', '-c', line, '/dev/null'];
    }
    const child = spawn(argv[0], argv.slice(1), { cwd: context.cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    if (child.pid !== undefined) {
      const groups = this.#execGroups.get(request.containerId) ?? new Set<number>();
      for (const pgid of groups) if (!groupAlive(pgid)) groups.delete(pgid);
      groups.add(child.pid);
      this.#execGroups.set(request.containerId, groups);
    }
    const onResize = (size: TerminalSize) => {
      if (ttyFile === undefined) return;
      let tty = '';
      try {
        tty = fs.readFileSync(ttyFile, 'utf8').trim();
      } catch {
        return;
      }
      if (tty.startsWith('/dev/')) spawn('stty', ['-F', tty, 'cols', String(size.width), 'rows', String(size.height)], { stdio: 'ignore' }).on('error', () => {});
    };
    streams.resize.on('resize', onResize);
    const onGone = () => killGroup(child.pid);
    streams.signal.addEventListener('abort', onGone);
    try {
      return await runChild(child, streams, request.cmd[0]);
    } finally {
      streams.resize.off('resize', onResize);
      streams.signal.removeEventListener('abort', onGone);
      if (ttyFile !== undefined) fs.rmSync(ttyFile, { force: true });
    }
  }

  async attach(request: AttachStreamRequest, streams: CommandStreams): Promise<CommandResult> {
    const context = this.#target.execContext(request.containerId);
    return attachToShim(context.dir, request, streams);
  }

  async portForward(_podSandboxId: string, port: number, data: Duplex): Promise<void> {
    await forwardTcp('127.0.0.1', port, data);
  }

  describeSandbox(podSandboxId: string): { name: string; uid: string } {
    return this.#target.sandboxNames(podSandboxId);
  }
}

/** pipes the streams to the child and resolves with how it ended */
function runChild(child: ReturnType<typeof spawn>, streams: CommandStreams, command: string): Promise<CommandResult> {
  return new Promise((resolve) => {
    let failed: string | undefined;
    child.once('error', (err: NodeJS.ErrnoException) => {
      failed = err.code === 'ENOENT' ? `exec: "${command}": executable file not found in $PATH` : err.code === 'EACCES' ? `exec: "${command}": permission denied` : err.message;
      resolve({ error: failed });
    });
    if (streams.stdin && child.stdin) {
      streams.stdin.pipe(child.stdin);
      child.stdin.on('error', () => {
        // the command exited without reading all its input
      });
    } else {
      child.stdin?.end();
    }
    if (child.stdout) {
      if (streams.stdout) child.stdout.pipe(streams.stdout, { end: false });
      else child.stdout.resume();
    }
    if (child.stderr) {
      if (streams.stderr) child.stderr.pipe(streams.stderr, { end: false });
      else if (streams.stdout && streams.tty) child.stderr.pipe(streams.stdout, { end: false });
      else child.stderr.resume();
    }
    const done = (code: number | null, signal: NodeJS.Signals | null) => {
      if (failed !== undefined) return;
      streams.stdin?.unpipe();
      child.stdout?.unpipe();
      child.stderr?.unpipe();
      resolve({ exitCode: code ?? 128 + (signal ? os.constants.signals[signal] : 0) });
    };
    child.once('close', done);
    // a background process of the command may hold its output open: do not wait for it long
    child.once('exit', (code, signal) => setTimeout(() => done(code, signal), 2000).unref());
  });
}
