/**
 * End-to-end harness: starts the real `ballast apiserver` process from dist/ (make test builds it)
 * on a free port with a temporary data dir, and runs the real kubectl binaries against it.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { freePort } from '../../bench/lib/processes';
import { rememberPki, seedPki } from '../helpers/pki-cache';

export { freePort };

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const MAIN_JS = path.join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js');

export type KubectlVersion = '1.32' | '1.20';

/** the kubectl binaries: 1.32 beside the machine's kubectl dispatcher, 1.20 from .tools/ */
export function kubectlPath(version: KubectlVersion): string | undefined {
  if (version === '1.20') {
    const p = path.join(REPO_ROOT, '.tools', 'kubernetes-client', 'usr', 'bin', 'kubectl');
    return fs.existsSync(p) ? p : undefined;
  }
  try {
    const dispatcher = execFileSync('bash', ['-c', 'readlink -f "$(command -v kubectl)"'], { encoding: 'utf8' }).trim();
    const p = path.join(path.dirname(dispatcher), `kubectl.${version}`);
    return dispatcher && fs.existsSync(p) ? p : undefined;
  } catch {
    return undefined;
  }
}

/** why a kubectl-driven test cannot run here, or undefined when it can */
export function missingKubectl(version: KubectlVersion): string | undefined {
  if (!fs.existsSync(MAIN_JS)) return `${MAIN_JS} is missing: run make build`;
  if (!kubectlPath(version)) return `kubectl ${version} not found (run scripts/install-test-deps.sh)`;
  return undefined;
}

export function tempDir(t: Test, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ballast-e2e-${prefix}-`));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}


/** poll fn until it returns a truthy value or timeoutMs passes */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface HttpResult {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface StartOptions {
  /** reuse a data dir (restarts); default: a fresh temporary one */
  dataDir?: string;
  port?: number;
  /** extra flags */
  args?: string[];
  /** let the server generate its own certificates and keys instead of the suite's shared set */
  freshPki?: boolean;
}

/** one running `ballast apiserver` process */
export class ApiServerProcess {
  readonly dataDir: string;
  readonly port: number;
  readonly url: string;
  readonly kubeconfig: string;
  readonly #child: ChildProcess;
  #output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(init: { dataDir: string; port: number; child: ChildProcess }) {
    this.dataDir = init.dataDir;
    this.port = init.port;
    this.url = `https://127.0.0.1:${init.port}`;
    this.kubeconfig = path.join(init.dataDir, 'admin.kubeconfig');
    this.#child = init.child;
    init.child.stdout?.on('data', (d: Buffer) => (this.#output += d.toString()));
    init.child.stderr?.on('data', (d: Buffer) => (this.#output += d.toString()));
    this.exited = new Promise((resolve) => init.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** everything the process printed so far (stdout and stderr) */
  get output(): string {
    return this.#output;
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** an HTTPS request trusting the generated CA, made as the admin (its client certificate) */
  request(method: string, urlPath: string, body?: string, headers: Record<string, string> = {}): Promise<HttpResult> {
    const pki = path.join(this.dataDir, 'pki');
    return this.#request(method, urlPath, body, headers, { cert: fs.readFileSync(path.join(pki, 'admin.crt')), key: fs.readFileSync(path.join(pki, 'admin.key')) });
  }

  /** the same request without a client certificate (anonymous unless the headers carry a credential) */
  requestWithoutCert(method: string, urlPath: string, body?: string, headers: Record<string, string> = {}): Promise<HttpResult> {
    return this.#request(method, urlPath, body, headers, {});
  }

  #request(method: string, urlPath: string, body: string | undefined, headers: Record<string, string>, client: { cert?: Buffer; key?: Buffer }): Promise<HttpResult> {
    const ca = fs.readFileSync(path.join(this.dataDir, 'pki', 'ca.crt'));
    return new Promise((resolve, reject) => {
      // Node frames a DELETE body only when told its length (it does not chunk DELETE by default):
      // without it the bytes would reach the server as the start of the next request
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
        headers = { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
      }
      const req = https.request(`${this.url}${urlPath}`, { method, ca, headers, timeout: 10_000, ...client }, (res) => {
        let data = '';
        res.on('data', (d: Buffer) => (data += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data, headers: res.headers }));
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath} timed out`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  async waitReady(timeoutMs = 60_000): Promise<void> {
    await waitFor(
      `${this.url}/readyz`,
      async () => {
        if (!this.running) throw new Error(`the server exited early:\n${this.output}`);
        if (!fs.existsSync(this.kubeconfig)) return false;
        return (await this.request('GET', '/readyz')).status === 200;
      },
      timeoutMs,
    );
  }

  /** send a signal and wait for the exit */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.#child.kill(signal);
    return this.exited;
  }
}

/** start a server and wait for /readyz; it is stopped (SIGKILL if need be) when the test ends */
export async function startApiServer(t: Test, opts: StartOptions = {}): Promise<ApiServerProcess> {
  const dataDir = opts.dataDir ?? tempDir(t, 'data');
  const port = opts.port ?? (await freePort());
  const generates = opts.freshPki ? false : seedPki(dataDir, opts.args ?? []);
  const child = spawn(
    process.execPath,
    [MAIN_JS, 'apiserver', '--data-dir', dataDir, '--secure-port', String(port), '--bind-address', '127.0.0.1', ...(opts.args ?? [])],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } },
  );
  const server = new ApiServerProcess({ dataDir, port, child });
  t.teardown(async () => {
    if (!server.running) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await server.exited;
    clearTimeout(timer);
  });
  await server.waitReady();
  if (generates) rememberPki(dataDir);
  return server;
}

// kubectl runners live beside this file; tests import everything from the harness
export { Kubectl, KubectlStream, kubectlFor, writeKubeconfigWith } from './kubectl';
export type { Credentials } from './kubectl';
export type { KubectlResult } from './kubectl';
