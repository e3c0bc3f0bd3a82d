/**
 * A private PostgreSQL for one test file or benchmark: Debian's `postgresql` binaries run a fresh
 * cluster made by initdb in a temporary directory, listening on 127.0.0.1 at a free port and on a
 * Unix socket inside that directory, never the system's cluster. initdb refuses to run as root, so as
 * root the cluster belongs to the `postgres` user the package created. `stop()` stops it and removes
 * the directory; `restart()` stops and starts it on the same port (a database restart under load).
 *
 * Needs Debian's postgresql (scripts/install-test-deps.sh installs it): `postgresSkipReason()` says
 * why not when the binaries are missing, so tests skip on a machine without them.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes';

const execFileAsync = promisify(execFile);

export interface PrivatePostgres {
  /** the temporary directory holding the cluster's data and socket */
  dir: string;
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url: string;
  /** a URL for another database of the same cluster, created if needed */
  database(name: string): Promise<string>;
  /** stop the server (fast shutdown: open connections are dropped) and start it again */
  restart(options?: { downMs?: number }): Promise<void>;
  /** stop it without starting it again (start() brings it back) */
  stopServer(): Promise<void>;
  start(): Promise<void>;
  /** the server's log so far */
  log(): string;
  stop(): Promise<void>;
}

export interface PrivatePostgresOptions {
  /** the database `url` names (created; default "ballast") */
  database?: string;
  /** extra `-c name=value` settings */
  settings?: Record<string, string>;
  /**
   * serve TLS with this certificate and key; with caFile, client certificates signed by it are
   * checked (pg_hba's `cert` method)
   */
  tls?: { certFile: string; keyFile: string; caFile?: string };
  /** pg_hba.conf lines in place of initdb's (which trust every local connection) */
  hba?: string[];
}

/** the directory of Debian's PostgreSQL binaries (the newest major installed), or undefined */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  let majors: string[];
  try {
    majors = fs.readdirSync(root).filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  majors.sort((a, b) => Number(b) - Number(a));
  for (const m of majors) {
    const bin = path.join(root, m, 'bin');
    if (fs.existsSync(path.join(bin, 'initdb')) && fs.existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

/** why a private PostgreSQL cannot be started here, or undefined when it can */
export function postgresSkipReason(): string | undefined {
  if (!postgresBinDir()) return "PostgreSQL is not installed (Debian's postgresql package; scripts/install-test-deps.sh installs it)";
  if (process.getuid?.() === 0 && !userExists('postgres')) return 'running as root and there is no postgres user to run initdb as';
  return undefined;
}

function userExists(name: string): boolean {
  try {
    execFileSync('id', ['-u', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function startPostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(postgresSkipReason());
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-pg-'));
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  if (asRoot) {
    fs.chmodSync(dir, 0o755);
    execFileSync('chown', ['postgres:postgres', dir]);
  }
  // as root, every PostgreSQL binary runs as the postgres user
  const run = (file: string, args: string[]) =>
    asRoot ? execFileAsync('runuser', ['-u', 'postgres', '--', path.join(bin, file), ...args]) : execFileAsync(path.join(bin, file), args);
  await run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const tlsSettings: Record<string, string> = {};
  if (options.tls) {
    // the server reads its key only when the key file is its own and private
    const own = (from: string, name: string, mode: number) => {
      const to = path.join(dir, name);
      fs.copyFileSync(from, to);
      fs.chmodSync(to, mode);
      if (asRoot) execFileSync('chown', ['postgres:postgres', to]);
      return to;
    };
    tlsSettings.ssl = 'on';
    tlsSettings.ssl_cert_file = own(options.tls.certFile, 'server.crt', 0o644);
    tlsSettings.ssl_key_file = own(options.tls.keyFile, 'server.key', 0o600);
    if (options.tls.caFile) tlsSettings.ssl_ca_file = own(options.tls.caFile, 'ca.crt', 0o644);
  }
  if (options.hba) {
    // local (Unix socket) connections stay trusted: the helper's own psql uses them
    const hba = path.join(data, 'pg_hba.conf');
    fs.writeFileSync(hba, ['local all all trust', ...options.hba, ''].join('\n'));
    if (asRoot) execFileSync('chown', ['postgres:postgres', hba]);
  }
  const settings: Record<string, string> = {
    ...tlsSettings,
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: dir,
    max_connections: '200',
    ...options.settings,
  };
  const serverArgs = Object.entries(settings)
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(' ');
  const start = async () => {
    await run('pg_ctl', ['-D', data, '-l', logFile, '-o', serverArgs, '-w', '-t', '60', 'start']);
  };
  const stopServer = async () => {
    await run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  };
  await start();
  const psql = (sql: string) => run('psql', ['-h', dir, '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qAtc', sql]);
  const created = new Set<string>();
  const database = async (name: string) => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${name}: use lower-case letters, digits and _`);
    if (!created.has(name)) {
      await psql(`CREATE DATABASE ${name}`);
      created.add(name);
    }
    return `postgres://postgres@127.0.0.1:${port}/${name}`;
  };
  const url = await database(options.database ?? 'ballast');
  let stopped = false;
  return {
    dir,
    port,
    url,
    database,
    start,
    stopServer,
    async restart(o = {}) {
      await stopServer();
      if (o.downMs) await new Promise((r) => setTimeout(r, o.downMs));
      await start();
    },
    log: () => {
      try {
        return fs.readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopServer().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** the version the private clusters run ("15.18"), or undefined */
export function postgresVersion(): string | undefined {
  const bin = postgresBinDir();
  if (!bin) return undefined;
  try {
    return /\d+(\.\d+)+/.exec(execFileSync(path.join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }))?.[0];
  } catch {
    return undefined;
  }
}
