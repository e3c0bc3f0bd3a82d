/**
 * A real `ballast apiserver` process for the reliability tools (no tap dependency, so the tools run
 * standalone too): start on a data dir, wait for /readyz, kill with any signal, sample its RSS.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from './client';
import { freePort, sleep } from '../../../bench/lib/processes';
import { rememberPki, seedPki } from '../../helpers/pki-cache';

export { sleep };

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const MAIN_JS = path.join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js');

export interface ServerOptions {
  dataDir: string;
  port?: number;
  /** extra flags, e.g. ['--max-requests-inflight', '10'] */
  args?: string[];
  /** flags for node itself, e.g. ['--max-old-space-size=128'] */
  nodeArgs?: string[];
}


export class BallastServer {
  readonly dataDir: string;
  readonly port: number;
  readonly url: string;
  readonly args: string[];
  readonly nodeArgs: string[];
  #child: ChildProcess | undefined;
  #output = '';
  #exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> = Promise.resolve({ code: null, signal: null });
  #client: Client | undefined;

  private constructor(o: ServerOptions & { port: number }) {
    this.dataDir = o.dataDir;
    this.port = o.port;
    this.url = `https://127.0.0.1:${o.port}`;
    this.args = o.args ?? [];
    this.nodeArgs = o.nodeArgs ?? [];
  }

  /** start a server process and wait until /readyz answers 200 */
  static async start(o: ServerOptions): Promise<BallastServer> {
    const s = new BallastServer({ ...o, port: o.port ?? (await freePort()) });
    await s.restart();
    return s;
  }

  get pid(): number {
    return this.#child?.pid ?? -1;
  }

  get running(): boolean {
    return !!this.#child && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  get output(): string {
    return this.#output;
  }

  get exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.#exited;
  }

  /** a client with a connection per request (see the keep-alive note in the reliability README section) */
  freshClient(): Client {
    return new Client({ url: this.url, ca: fs.readFileSync(path.join(this.dataDir, 'pki', 'ca.crt')), keepAlive: false });
  }

  /** a keep-alive client trusting the generated CA (re-created after a restart) */
  client(): Client {
    this.#client ??= new Client({ url: this.url, ca: fs.readFileSync(path.join(this.dataDir, 'pki', 'ca.crt')) });
    return this.#client;
  }

  /** (re)start the process on the same data dir and port and wait for /readyz */
  async restart(timeoutMs = 60_000): Promise<void> {
    if (this.running) throw new Error('server still running');
    this.#client?.close();
    this.#client = undefined;
    this.#output = '';
    const generates = seedPki(this.dataDir, this.args);
    const child = spawn(
      process.execPath,
      [...this.nodeArgs, MAIN_JS, 'apiserver', '--data-dir', this.dataDir, '--secure-port', String(this.port), '--bind-address', '127.0.0.1', ...this.args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#child = child;
    child.stdout?.on('data', (d: Buffer) => this.#keep(d));
    child.stderr?.on('data', (d: Buffer) => this.#keep(d));
    this.#exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`the server exited during start:\n${this.#output}`);
      if (fs.existsSync(path.join(this.dataDir, 'admin.kubeconfig'))) {
        try {
          if ((await this.client().request('GET', '/readyz', { timeoutMs: 2000 })).status === 200) {
            if (generates) rememberPki(this.dataDir);
            return;
          }
        } catch {
          // not listening yet, or the CA was being (re)generated: read it again next time
          (this.#client as Client | undefined)?.close();
          this.#client = undefined;
        }
      }
      if (Date.now() > deadline) throw new Error(`server not ready after ${timeoutMs} ms:\n${this.#output}`);
      await sleep(50);
    }
  }

  /** send a signal and wait for the exit */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.#child!.kill(signal);
    const r = await this.#exited;
    this.#client?.close();
    this.#client = undefined;
    return r;
  }

  /** resident set size in bytes (VmRSS from /proc/<pid>/status); 0 when not running */
  rss(): number {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  }

  #keep(d: Buffer): void {
    // the tail is enough to explain a failure
    this.#output = (this.#output + d.toString()).slice(-64 * 1024);
  }
}

/** sample a server's RSS every intervalMs until stopped; returns the samples */
export function sampleRss(server: BallastServer, intervalMs = 100): { stop(): number[]; max(): number } {
  const samples: number[] = [];
  const timer = setInterval(() => {
    const v = server.rss();
    if (v > 0) samples.push(v);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return samples;
    },
    max: () => Math.max(0, ...samples),
  };
}
