/**
 * etcd, side by side: installs Debian's etcd-server when /usr/bin/etcd is missing (the package's
 * service is kept from starting with a policy-rc.d), runs the binary itself on loopback with a
 * temporary data dir, and talks to it through its gRPC-gateway JSON API (/v3/kv/put, /v3/kv/range,
 * /v3/kv/deleterange, /v3/watch; keys and values in base64). etcd fsyncs every commit, as we do.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { HttpClient } from './lib/http-client';
import { freePort, rssMiB, sizeMiB, sleep } from './lib/processes';
import { nowMs } from './lib/stats';

export const ETCD_BIN = '/usr/bin/etcd';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString();

/** the key after every key with this prefix (etcd's range_end for a prefix) */
export function prefixEnd(prefix: string): string {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i] < 0xff) {
      b[i]++;
      return b.subarray(0, i + 1).toString('latin1');
    }
  }
  return '\0';
}

/** install etcd-server with apt when missing (needs root); returns why not when it cannot */
export function ensureEtcd(log: (s: string) => void): string | undefined {
  if (fs.existsSync(ETCD_BIN)) return undefined;
  if (process.getuid?.() !== 0) return `${ETCD_BIN} missing and not root: install etcd-server (apt-get install -y etcd-server)`;
  const policy = '/usr/sbin/policy-rc.d';
  const created = !fs.existsSync(policy);
  try {
    // keep the package's service from starting: we run the binary ourselves, on loopback only
    if (created) fs.writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    log('installing etcd-server with apt-get (once)');
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'etcd-server'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch (err) {
    return `apt-get install etcd-server failed: ${(err as Error).message}`;
  } finally {
    if (created) fs.rmSync(policy, { force: true });
  }
  return fs.existsSync(ETCD_BIN) ? undefined : `${ETCD_BIN} still missing after installing etcd-server`;
}

export function etcdVersion(): string {
  try {
    return /etcd Version: (\S+)/.exec(execFileSync(ETCD_BIN, ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export class EtcdServer {
  readonly dataDir: string;
  #child?: ChildProcess;
  #exited?: Promise<void>;
  port = 0;

  constructor(dataDir: string) {
    this.dataDir = dataDir;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.#child?.pid ?? -1;
  }

  async start(): Promise<number> {
    this.port = await freePort();
    const peer = await freePort();
    fs.mkdirSync(this.dataDir, { recursive: true });
    const t0 = Date.now();
    const child = spawn(
      ETCD_BIN,
      [
        '--name', 'bench',
        '--data-dir', this.dataDir,
        '--listen-client-urls', this.url,
        '--advertise-client-urls', this.url,
        '--listen-peer-urls', `http://127.0.0.1:${peer}`,
        '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`,
        '--initial-cluster', `bench=http://127.0.0.1:${peer}`,
        '--log-level', 'error',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
    this.#child = child;
    this.#exited = new Promise((r) => child.on('exit', () => r()));
    const c = new HttpClient({ baseUrl: this.url, maxSockets: 1 });
    try {
      for (;;) {
        if (child.exitCode !== null) throw new Error(`etcd exited: ${err}`);
        if (Date.now() - t0 > 60_000) throw new Error(`etcd not healthy in 60 s: ${err}`);
        const ok = await c.request('GET', '/health').then((r) => r.status === 200 && r.body.toString().includes('true'), () => false);
        if (ok) return Date.now() - t0;
        await sleep(20);
      }
    } finally {
      c.close();
    }
  }

  rssMiB(): number {
    return rssMiB(this.pid);
  }

  files(): { dbMiB: number; walMiB: number } {
    return { dbMiB: sizeMiB(path.join(this.dataDir, 'member', 'snap')), walMiB: sizeMiB(path.join(this.dataDir, 'member', 'wal')) };
  }

  async stop(): Promise<void> {
    if (!this.#child || this.#child.exitCode !== null) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child?.kill('SIGKILL'), 20_000);
    await this.#exited;
    clearTimeout(timer);
  }
}

interface RangeResponse {
  header: { revision: string };
  kvs?: { key: string; value: string; mod_revision: string }[];
  more?: boolean;
  count?: string;
}

/** the raw key-value operations the benchmark compares against */
export class EtcdClient {
  readonly http: HttpClient;

  constructor(url: string, maxSockets: number) {
    this.http = new HttpClient({ baseUrl: url, maxSockets });
  }

  async put(key: string, value: string): Promise<number> {
    const r = await this.http.json<{ header: { revision: string } }>('POST', '/v3/kv/put', { key: b64(key), value: b64(value) });
    return Number(r.header.revision);
  }

  /** a put only if the key's mod_revision is still `rev` (kube's update with a precondition) */
  async putIf(key: string, value: string, rev: number): Promise<boolean> {
    const r = await this.http.json<{ succeeded?: boolean }>('POST', '/v3/kv/txn', {
      compare: [{ key: b64(key), target: 'MOD', result: 'EQUAL', mod_revision: String(rev) }],
      success: [{ request_put: { key: b64(key), value: b64(value) } }],
    });
    return r.succeeded === true;
  }

  async del(key: string): Promise<void> {
    await this.http.json('POST', '/v3/kv/deleterange', { key: b64(key) });
  }

  /** keys under prefix from startKey; serializable = etcd's local read (our rv=0 analogue) */
  async range(prefix: string, o: { limit?: number; startKey?: string; revision?: number; serializable?: boolean } = {}): Promise<{ keys: string[]; values: number; more: boolean; revision: number; bytes: number; ms: number }> {
    const t0 = nowMs();
    const res = await this.http.request(
      'POST',
      '/v3/kv/range',
      JSON.stringify({
        key: b64(o.startKey ?? prefix),
        range_end: b64(prefixEnd(prefix)),
        ...(o.limit ? { limit: String(o.limit) } : {}),
        ...(o.revision ? { revision: String(o.revision) } : {}),
        ...(o.serializable ? { serializable: true } : {}),
      }),
    );
    // timed to the last byte received, as the server side; decoding below is the client's own cost
    const ms = nowMs() - t0;
    if (res.status !== 200) throw new Error(`range: ${res.status} ${res.body.toString().slice(0, 200)}`);
    const r = JSON.parse(res.body.toString()) as RangeResponse;
    // decode values as a client would
    let values = 0;
    const keys = (r.kvs ?? []).map((kv) => {
      values += unb64(kv.value).length;
      return unb64(kv.key);
    });
    return { keys, values, more: r.more === true, revision: Number(r.header.revision), bytes: res.body.length, ms };
  }

  /** a watch of a prefix; onEvent(key, revision, receivedAtMs) for each put/delete */
  watch(prefix: string, onEvent: (key: string, revision: number, at: number) => void, onCreated?: () => void): { close(): void } {
    const body = JSON.stringify({ create_request: { key: b64(prefix), range_end: b64(prefixEnd(prefix)) } });
    return this.http.stream('POST', '/v3/watch', body, (line, at) => {
      const msg = JSON.parse(line) as { result?: { created?: boolean; events?: { kv: { key: string; mod_revision: string } }[] } };
      if (msg.result?.created) onCreated?.();
      for (const e of msg.result?.events ?? []) onEvent(unb64(e.kv.key), Number(e.kv.mod_revision), at);
    });
  }

  close(): void {
    this.http.close();
  }
}
