/**
 * Where a component finds the API server and how it proves who it is: a kubeconfig file
 * (`--kubeconfig`), optionally overridden by `--master`, as client-go's clientcmd reads it. Only the
 * parts a component needs: the current (or named) context's cluster and user; certificate and key as
 * files or inline data, bearer tokens and token files, basic auth is refused (kube dropped it).
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';

/** everything needed to open connections to one API server */
export interface ClientConfig {
  /** base URL, e.g. https://127.0.0.1:6443 (no trailing slash) */
  server: string;
  /** PEM of the CA trusted for the server's certificate; undefined: the system roots */
  ca?: string;
  insecureSkipTlsVerify?: boolean;
  /** TLS server name to verify instead of the URL's host */
  tlsServerName?: string;
  /** client certificate and key (PEM) */
  cert?: string;
  key?: string;
  /** bearer token, read once */
  token?: string;
  /** file holding the bearer token, re-read when it changes (projected service account tokens rotate) */
  tokenFile?: string;
  /** User-Agent header, e.g. `ballast-controller-manager/v1.20.0` */
  userAgent?: string;
}

/** a kubeconfig that cannot be used; the message names the file and what is wrong */
export class KubeconfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

interface Named<T> {
  name?: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}

type Entry = Record<string, unknown>;

const isEntry = (v: unknown): v is Entry => typeof v === 'object' && v !== null && !Array.isArray(v);

function findNamed(list: unknown, field: 'cluster' | 'user' | 'context', name: string): Entry | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const item of list as Named<Entry>[]) {
    if (isEntry(item) && item.name === name && isEntry(item[field])) return item[field];
  }
  return undefined;
}

function str(e: Entry | undefined, key: string): string | undefined {
  const v = e?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export interface LoadKubeconfigOptions {
  /** --master: overrides the cluster's server URL */
  master?: string;
  /** a context other than current-context */
  context?: string;
  userAgent?: string;
}

/**
 * Read a kubeconfig. Relative file paths inside it resolve against the file's directory, as
 * clientcmd does. With only `master` (no file), the server is used without credentials.
 */
export function loadClientConfig(file: string | undefined, opts: LoadKubeconfigOptions = {}): ClientConfig {
  if (!file) {
    if (!opts.master) throw new KubeconfigError('neither --kubeconfig nor --master was specified');
    return { server: normalizeServer(opts.master, '--master'), userAgent: opts.userAgent };
  }
  let doc: unknown;
  try {
    doc = yaml.load(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message.split('\n')[0];
    throw new KubeconfigError(`kubeconfig ${file}: ${reason}`);
  }
  if (!isEntry(doc)) throw new KubeconfigError(`kubeconfig ${file}: not a kubeconfig (expected a mapping)`);
  const dir = path.dirname(path.resolve(file));
  const contextName = opts.context ?? str(doc, 'current-context');
  const context = contextName ? findNamed(doc.contexts, 'context', contextName) : undefined;
  if (contextName && !context) throw new KubeconfigError(`kubeconfig ${file}: context "${contextName}" does not exist`);
  const clusterName = str(context, 'cluster');
  const userName = str(context, 'user');
  const cluster = clusterName ? findNamed(doc.clusters, 'cluster', clusterName) : undefined;
  const user = userName ? findNamed(doc.users, 'user', userName) : undefined;
  if (clusterName && !cluster) throw new KubeconfigError(`kubeconfig ${file}: cluster "${clusterName}" does not exist`);

  const server = opts.master ?? str(cluster, 'server');
  if (!server) throw new KubeconfigError(`kubeconfig ${file}: no server found for ${contextName ? `context "${contextName}"` : 'the current context'}`);

  const readRef = (dataKey: string, fileKey: string, e: Entry | undefined): string | undefined => {
    const data = str(e, dataKey);
    if (data) return Buffer.from(data, 'base64').toString('utf8');
    const ref = str(e, fileKey);
    if (!ref) return undefined;
    const resolved = path.resolve(dir, ref);
    try {
      return fs.readFileSync(resolved, 'utf8');
    } catch {
      throw new KubeconfigError(`kubeconfig ${file}: ${fileKey} ${resolved} cannot be read`);
    }
  };

  if (str(user, 'username') || str(user, 'password')) {
    throw new KubeconfigError(`kubeconfig ${file}: basic authentication (username/password) is not supported`);
  }
  const config: ClientConfig = {
    server: normalizeServer(server, opts.master ? '--master' : `kubeconfig ${file}`),
    ca: readRef('certificate-authority-data', 'certificate-authority', cluster),
    insecureSkipTlsVerify: cluster?.['insecure-skip-tls-verify'] === true,
    tlsServerName: str(cluster, 'tls-server-name'),
    cert: readRef('client-certificate-data', 'client-certificate', user),
    key: readRef('client-key-data', 'client-key', user),
    token: str(user, 'token'),
    tokenFile: str(user, 'tokenFile') ? path.resolve(dir, str(user, 'tokenFile')!) : undefined,
    userAgent: opts.userAgent,
  };
  if (!!config.cert !== !!config.key) throw new KubeconfigError(`kubeconfig ${file}: client certificate and key must be given together`);
  return config;
}

function normalizeServer(server: string, where: string): string {
  let url: URL;
  try {
    url = new URL(server.includes('://') ? server : `https://${server}`);
  } catch {
    throw new KubeconfigError(`${where}: server "${server}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new KubeconfigError(`${where}: server "${server}" must be an http or https URL`);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}
