/**
 * The server under test: the real `ballast apiserver` process (dist/src/cli/main.js) on loopback
 * with a temporary data dir, durable writes (the default synchronous=FULL), optionally under
 * `node --cpu-prof`. Secured (the default), it runs with `make run`'s flags (the Makefile's
 * RUN_FLAGS: Node and RBAC authorization, NodeRestriction besides the default admission plugins)
 * and the benchmark's clients authenticate as a service account whose ClusterRole lets it do what
 * the scenarios do: every request pays for authentication, an RBAC decision and admission.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadClientConfig } from '../../src/client/kubeconfig';
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
  /** false: the server's own defaults (anonymous requests, AlwaysAllow) and clients without credentials */
  secured?: boolean;
}

/** the service account the scenarios' clients are, in namespace default */
const BENCH_ACCOUNT = 'ballast-bench';

/** `make run`'s apiserver flags, as the Makefile's RUN_FLAGS line has them */
export function makeRunFlags(mainJs: string): string[] {
  // dist/src/cli/main.js -> the repository
  const makefile = fs.readFileSync(path.resolve(path.dirname(mainJs), '..', '..', '..', 'Makefile'), 'utf8');
  const line = /^RUN_FLAGS := (.*)$/m.exec(makefile);
  if (!line) throw new Error('no RUN_FLAGS line in the Makefile');
  return line[1].trim().split(/\s+/);
}

export class BallastServer {
  readonly #o: BallastServerOptions;
  #child?: ChildProcess;
  #exited?: Promise<void>;
  port = 0;
  output = '';
  /** the bench service account's token (secured servers), set once the server is ready */
  token?: string;

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

  /** a client of this server with the scenarios' credentials */
  client(maxSockets: number): HttpClient {
    return new HttpClient({ baseUrl: this.url, ca: this.ca(), maxSockets, token: this.token });
  }

  /** start the process and wait for /readyz 200; returns milliseconds from spawn to ready */
  async start(): Promise<number> {
    this.port = await freePort();
    fs.mkdirSync(this.#o.dataDir, { recursive: true });
    const nodeArgs = this.#o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${this.#o.cpuProfDir}`] : [];
    const t0 = nowMs();
    const child = spawn(
      process.execPath,
      [
        ...nodeArgs,
        this.#o.mainJs,
        'apiserver',
        '--data-dir',
        this.#o.dataDir,
        '--secure-port',
        String(this.port),
        '--bind-address',
        '127.0.0.1',
        ...(this.#o.secured === false ? [] : makeRunFlags(this.#o.mainJs)),
        ...(this.#o.args ?? []),
      ],
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
    if (this.#o.secured !== false) this.token = await this.#benchToken();
    return readyMs;
  }

  /**
   * As the admin kubeconfig's user (system:masters): the bench service account, a ClusterRole for
   * what the scenarios touch and its binding (each left alone if it exists: a second server on one
   * database), then a token for the account from the TokenRequest API
   */
  async #benchToken(): Promise<string> {
    const { cert, key } = loadClientConfig(path.join(this.#o.dataDir, 'admin.kubeconfig'));
    const admin = new HttpClient({ baseUrl: this.url, ca: this.ca(), maxSockets: 1, cert, key });
    try {
      const rbac = '/apis/rbac.authorization.k8s.io/v1';
      const exists = [201, 409];
      await admin.json('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: BENCH_ACCOUNT } }, exists);
      const rules = [
        { apiGroups: [''], resources: ['namespaces', 'configmaps', 'pods', 'serviceaccounts'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
      ];
      await admin.json('POST', `${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: BENCH_ACCOUNT }, rules }, exists);
      const subjects = [{ kind: 'ServiceAccount', name: BENCH_ACCOUNT, namespace: 'default' }];
      const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: BENCH_ACCOUNT };
      await admin.json('POST', `${rbac}/clusterrolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: BENCH_ACCOUNT }, subjects, roleRef }, exists);
      const request = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 24 * 3600 } };
      const answer = await admin.json<{ status: { token: string } }>('POST', `/api/v1/namespaces/default/serviceaccounts/${BENCH_ACCOUNT}/token`, request);
      return answer.status.token;
    } finally {
      admin.close();
    }
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
