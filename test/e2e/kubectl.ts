/** Running real kubectl binaries against a test server, each with its own HOME (and so its own cache). */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import yaml from 'js-yaml';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { kubectlPath, waitFor } from './harness';
import type { ApiServerProcess, KubectlVersion } from './harness';

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** a kubectl of one version bound to one server, with a private HOME */
export class Kubectl {
  readonly version: KubectlVersion;
  readonly #bin: string;
  readonly #home: string;
  readonly #kubeconfig: string;

  constructor(init: { version: KubectlVersion; bin: string; home: string; kubeconfig: string }) {
    this.version = init.version;
    this.#bin = init.bin;
    this.#home = init.home;
    this.#kubeconfig = init.kubeconfig;
  }

  #spawn(args: readonly string[]): ChildProcess {
    return spawn(this.#bin, ['--kubeconfig', this.#kubeconfig, '--request-timeout=30s', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.#home, KUBECACHEDIR: path.join(this.#home, '.kube', 'cache') },
    });
  }

  /** run to completion; `input` goes to stdin (for `-f -`) */
  run(args: readonly string[], input?: string, timeoutMs = 60_000): Promise<KubectlResult> {
    const child = this.#spawn(args);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin?.end(input);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        stderr += `\n[harness] kubectl ${args.join(' ')} killed after ${timeoutMs}ms`;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  /** run and fail loudly (with kubectl's stderr) unless it exits 0; returns stdout */
  async ok(args: readonly string[], input?: string): Promise<string> {
    const r = await this.run(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${this.version} ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  /** run and parse `-o json` output */
  async json<T = Record<string, unknown>>(args: readonly string[]): Promise<T> {
    return JSON.parse(await this.ok([...args, '-o', 'json'])) as T;
  }

  /** start a long-running kubectl (e.g. `get -w`) whose output lines can be awaited */
  stream(args: readonly string[]): KubectlStream {
    return new KubectlStream(this.#spawn(args));
  }
}

/** a running kubectl whose stdout is collected line by line */
export class KubectlStream {
  readonly #child: ChildProcess;
  readonly lines: string[] = [];
  #partial = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(child: ChildProcess) {
    this.#child = child;
    child.stdin?.end();
    child.stdout?.on('data', (d: Buffer) => {
      const parts = (this.#partial + d.toString()).split('\n');
      this.#partial = parts.pop() ?? '';
      this.lines.push(...parts);
    });
    child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** wait until some line matches; returns that line */
  async waitForLine(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    return waitFor(
      `a kubectl output line matching ${pattern} (got ${JSON.stringify(this.lines)}; stderr ${this.stderr})`,
      () => this.lines.find((l) => pattern.test(l)),
      timeoutMs,
    );
  }

  async kill(): Promise<void> {
    if (this.running) this.#child.kill('SIGTERM');
    await this.exited;
  }
}

/** a kubectl of the given version for this server, with a fresh HOME removed after the test */
export function kubectlFor(t: Test, version: KubectlVersion, server: ApiServerProcess, credentials?: Credentials): Kubectl {
  const bin = kubectlPath(version);
  if (!bin) throw new Error(`kubectl ${version} is not installed`);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `ballast-e2e-kubectl-${version}-`));
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }));
  const kubeconfig = credentials ? writeKubeconfigWith(server, credentials, path.join(home, 'kubeconfig')) : server.kubeconfig;
  return new Kubectl({ version, bin, home, kubeconfig });
}

/** a user other than the admin kubeconfig's: a bearer token or a client certificate */
export type Credentials = { token: string } | { cert: string; key: string };

/** the admin kubeconfig's cluster (server and CA) with other credentials */
export function writeKubeconfigWith(server: ApiServerProcess, credentials: Credentials, file: string): string {
  const admin = yaml.load(fs.readFileSync(server.kubeconfig, 'utf8')) as { clusters: Array<{ cluster: Record<string, string> }> };
  const user: Record<string, string> =
    'token' in credentials
      ? { token: credentials.token }
      : { 'client-certificate-data': Buffer.from(credentials.cert).toString('base64'), 'client-key-data': Buffer.from(credentials.key).toString('base64') };
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'ballast', cluster: admin.clusters[0].cluster }],
    users: [{ name: 'someone', user }],
    contexts: [{ name: 'ballast', context: { cluster: 'ballast', user: 'someone' } }],
    'current-context': 'ballast',
  };
  fs.writeFileSync(file, yaml.dump(doc), { mode: 0o600 });
  return file;
}
