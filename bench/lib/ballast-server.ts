/**
 * The server under test: the real `ballast apiserver` process (dist/src/cli/main.js) on loopback
 * with a temporary data dir, durable writes (the default synchronous=FULL), optionally under
 * `node --cpu-prof`.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { HttpClient } from './http-client';
import { freePort, rssMiB, sizeMiB, sleep } from './processes';
import { nowMs } from './stats';

export interface BallastServerOptions {
  /** dist/src/cli/main.js */
  mainJs: string;
  dataDir: string;
  /** extra apiserver flags */
  args?: string[];
  /** write a CPU profile into this folder when the server exits */
  cpuProfDir?: string;
}

export class BallastServer {
  readonly #o: BallastServerOptions;
  #child?: ChildProcess;
  #exited?: Promise<void>;
  port = 0;
  output = '';

  constructor(o: BallastServerOptions) {
    this.#o = o;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.#child?.pid ?? -1;
  }

  get dbFile(): string {
    return path.join(this.#o.dataDir, 'state.db');
  }

  ca(): Buffer {
    return fs.readFileSync(path.join(this.#o.dataDir, 'pki', 'ca.crt'));
  }

  /** start the process and wait for /readyz 200; returns milliseconds from spawn to ready */
  async start(): Promise<number> {
    this.port = await freePort();
    fs.mkdirSync(this.#o.dataDir, { recursive: true });
    const nodeArgs = this.#o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${this.#o.cpuProfDir}`] : [];
    const t0 = nowMs();
    const child = spawn(
      process.execPath,
      [...nodeArgs, this.#o.mainJs, 'apiserver', '--data-dir', this.#o.dataDir, '--secure-port', String(this.port), '--bind-address', '127.0.0.1', ...(this.#o.args ?? [])],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#child = child;
    this.output = '';
    child.stdout?.on('data', (d: Buffer) => (this.output = (this.output + d.toString()).slice(-200_000)));
    child.stderr?.on('data', (d: Buffer) => (this.output = (this.output + d.toString()).slice(-200_000)));
    this.#exited = new Promise((r) => child.on('exit', () => r()));
    const caFile = path.join(this.#o.dataDir, 'pki', 'ca.crt');
    let client: HttpClient | undefined;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`ballast exited early:\n${this.output.slice(-3000)}`);
      if (nowMs() - t0 > 300_000) throw new Error('ballast did not become ready in 300 s');
      if (!client && fs.existsSync(caFile) && fs.existsSync(path.join(this.#o.dataDir, 'admin.kubeconfig'))) {
        client = new HttpClient({ baseUrl: this.url, ca: fs.readFileSync(caFile), maxSockets: 1 });
      }
      if (client) {
        const ok = await client.request('GET', '/readyz').then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) break;
      }
      await sleep(10);
    }
    const readyMs = nowMs() - t0;
    client?.close();
    return readyMs;
  }

  rssMiB(): number {
    return rssMiB(this.pid);
  }

  /** database and WAL sizes in MiB */
  files(): { dbMiB: number; walMiB: number } {
    return { dbMiB: sizeMiB(this.dbFile), walMiB: sizeMiB(this.dbFile + '-wal') };
  }

  async stop(): Promise<void> {
    if (!this.#child || this.#child.exitCode !== null) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child?.kill('SIGKILL'), 30_000);
    await this.#exited;
    clearTimeout(timer);
  }
}
