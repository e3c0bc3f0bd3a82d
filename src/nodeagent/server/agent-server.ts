/**
 * The node agent's servers (kubelet's pkg/kubelet/server): the main HTTPS port (10250) behind
 * authentication and authorization, with the default handlers (/healthz, /pods, /stats, /metrics)
 * and the debugging ones (/containerLogs, /run, /exec, /attach, /portForward, /runningpods/); the
 * optional read-only port (10255: default handlers, no auth, GET only); and the healthz port
 * (127.0.0.1:10248: /healthz, plain HTTP, no auth).
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { RestClient } from '../../client/rest-client';
import type { Pod, RunningPod, RuntimeService } from '../types';
import { AgentAuth, type AgentAuthenticationConfig, type AgentAuthorizationConfig } from './auth';
import { LogRequestError, runtimeLogSource, serveContainerLogs, type LogSource } from './container-logs';
import { agentServingCertificate } from './serving-cert';
import type { ServingCertificateSource } from '../certificate/serving-certificate';
import { cpuAndMemoryOnly, resourceMetricsText, type StatsProvider } from './stats';
import { StreamError, parseStreamRequest, proxyUpgrade, statusBody, streamingUrl, writeRawResponse, writeRawStatus } from './streaming';
import { healthReport } from '../../controllers/serving';

/** a named health check: undefined when healthy, else why not */
export type AgentHealthCheck = () => string | undefined;

/** the agent's pods (kubelet's pod manager): those bound to this node, with their status */
export interface AgentPods {
  list(): Pod[];
  get(namespace: string, name: string): Pod | undefined;
}

export interface AgentServerOptions {
  /** --address, --port (10250) */
  address: string;
  port: number;
  /** --read-only-port; 0 turns it off */
  readOnlyPort: number;
  /** --healthz-bind-address, --healthz-port (127.0.0.1:10248); port 0 turns it off, -1 picks any (tests) */
  healthzBindAddress: string;
  healthzPort: number;
  tls: {
    certFile?: string;
    privateKeyFile?: string;
    certDir: string;
    hostname: string;
    nodeIps?: string[];
    minVersion?: 'TLSv1.2' | 'TLSv1.3';
    cipherSuites?: string[];
    /** a certificate that changes over time (serverTLSBootstrap), in place of the files and the self-signed pair */
    certificates?: ServingCertificateSource;
  };
  /** clientCAFile is read here; the webhook needs `client` */
  authentication: Omit<AgentAuthenticationConfig, 'clientCa'> & { clientCAFile?: string };
  authorization: AgentAuthorizationConfig;
  /** the client TokenReviews and SubjectAccessReviews are made with */
  client?: RestClient;
  nodeName: string;
  pods: AgentPods;
  /** the runtime's pods (ContainerRuntime.getPods(false)): containers and sandboxes for streaming */
  runningPods: () => Promise<RunningPod[]>;
  runtime: Pick<RuntimeService, 'exec' | 'attach' | 'portForward' | 'execSync' | 'containerStatus'>;
  /** where container logs are; defaults to the runtime's ContainerStatus log paths */
  logs?: LogSource;
  stats?: StatsProvider;
  registry: Registry;
  /** checks under /healthz of the main port besides ping and log (kubelet's syncloop) */
  checks: ReadonlyMap<string, AgentHealthCheck>;
  logger: Logger;
  /** how often a followed log checks its container still runs (kubelet: 5 s) */
  logCheckIntervalMs?: number;
}

export interface AgentServer {
  /** the ports listened on (0 for those turned off) */
  port: number;
  readOnlyPort: number;
  healthzPort: number;
  /** the serving certificate (PEM: leaf then CA for a generated one) */
  certificate: string;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void;

function text(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** kube's healthz: "ok", or the per-check lines when one fails or ?verbose is asked */
function healthz(all: ReadonlyMap<string, AgentHealthCheck>): Handler {
  return (_req, res, url) => {
    const one = url.pathname.slice('/healthz/'.length);
    if (url.pathname !== '/healthz' && url.pathname !== '/healthz/') {
      const check = all.get(one);
      if (!check) return text(res, 404, '404 page not found\n');
      const problem = check();
      return text(res, problem ? 500 : 200, problem ? `internal server error: ${problem}\n` : 'ok');
    }
    const { failed, lines } = healthReport(all, url.searchParams.getAll('exclude'));
    if (failed) return text(res, 500, `${lines.join('\n')}\nhealthz check failed\n`);
    text(res, 200, url.searchParams.has('verbose') ? `${lines.join('\n')}\nhealthz check passed\n` : 'ok');
  };
}

/** a runtime pod as kubelet's /runningpods/ shows it: a Pod with names, uid and containers */
function runningPodObject(p: RunningPod): Pod {
  return {
    metadata: { name: p.name, namespace: p.namespace, uid: p.uid, creationTimestamp: null },
    spec: { containers: p.containers.map((c) => ({ name: c.name, image: c.image, resources: {} })) },
    status: {},
  } as unknown as Pod;
}

class Routes {
  readonly logs: LogSource;
  readonly #health: Handler;
  constructor(readonly o: AgentServerOptions) {
    this.logs = o.logs ?? runtimeLogSource(o.runtime);
    this.#health = healthz(new Map<string, AgentHealthCheck>([['ping', () => undefined], ['log', () => undefined], ...o.checks]));
  }

  /** kubelet's default handlers (also on the read-only port) */
  default(path: string): Handler | undefined {
    if (path === '/healthz' || path.startsWith('/healthz/')) return this.#health;
    if (path === '/pods' || path === '/pods/') return (_req, res) => json(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: this.o.pods.list() });
    if (path === '/stats/summary' || path === '/stats/summary/') return (req, res, url) => this.summary(req, res, url);
    if (path === '/metrics') return (_req, res) => this.metrics(res);
    if (path === '/metrics/resource') return (_req, res) => this.resourceMetrics(res);
    return undefined;
  }

  /** kubelet's debugging handlers (main port only) */
  debugging(path: string): Handler | undefined {
    if (path === '/runningpods' || path === '/runningpods/') {
      return async (_req, res) => json(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: (await this.o.runningPods()).map(runningPodObject) });
    }
    if (path.startsWith('/containerLogs/')) return (req, res, url) => this.containerLogs(req, res, url);
    if (path.startsWith('/run/')) return (req, res, url) => this.run(req, res, url);
    if (/^\/(exec|attach|portForward)\//.test(path)) return (_req, res, url) => this.streamWithoutUpgrade(res, url);
    return undefined;
  }

  async summary(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!this.o.stats) return text(res, 503, 'stats are not available\n');
    let only = url.searchParams.get('only_cpu_and_memory') === 'true';
    if (req.method === 'POST') {
      const body = await readBody(req);
      if (body.length > 0) {
        try {
          only = (JSON.parse(body) as { only_cpu_and_memory?: boolean }).only_cpu_and_memory === true || only;
        } catch {
          return text(res, 400, 'Unable to decode request body\n');
        }
      }
    }
    const summary = await this.o.stats.summary(only);
    json(res, 200, only ? cpuAndMemoryOnly(summary) : summary);
  }

  async metrics(res: ServerResponse): Promise<void> {
    const body = await this.o.registry.metrics();
    res.writeHead(200, { 'Content-Type': this.o.registry.contentType });
    res.end(body);
  }

  async resourceMetrics(res: ServerResponse): Promise<void> {
    const summary = this.o.stats ? await this.o.stats.summary(true).catch(() => undefined) : undefined;
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(resourceMetricsText(summary));
  }

  async containerLogs(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const parts = url.pathname.split('/').slice(2).map(decodeURIComponent);
    const [namespace, podName, containerName] = parts;
    if (!namespace) return text(res, 400, '{"message": "Missing podNamespace."}');
    if (!podName) return text(res, 400, '{"message": "Missing podID."}');
    if (!containerName) return text(res, 400, '{"message": "Missing container name."}');
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    try {
      await serveContainerLogs({
        pod: this.o.pods.get(namespace, podName),
        namespace,
        podName,
        containerName,
        query: url.searchParams,
        source: this.logs,
        start: () => res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' }),
        write: (chunk) => res.write(chunk),
        signal: abort.signal,
        checkIntervalMs: this.o.logCheckIntervalMs,
      });
      res.end();
    } catch (err) {
      if (err instanceof LogRequestError && !res.headersSent) return text(res, err.code, err.message);
      throw err;
    }
  }

  /** kubelet's getRun: ExecSync of `cmd` (split on spaces), answering its combined output */
  async run(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'POST') return text(res, 405, '405: Method Not Allowed\n');
    const parts = url.pathname.split('/').slice(2).map(decodeURIComponent);
    if (parts.length !== 3 && parts.length !== 4) return text(res, 404, '404 page not found\n');
    const [namespace, podName] = parts;
    const uid = parts.length === 4 ? parts[2] : undefined;
    const container = parts[parts.length - 1];
    const form = new URLSearchParams(req.headers['content-type']?.includes('application/x-www-form-urlencoded') ? await readBody(req) : '');
    const cmd = (url.searchParams.get('cmd') ?? form.get('cmd') ?? '').split(' ').filter((s) => s !== '');
    const pod = (await this.o.runningPods()).find((p) => p.namespace === namespace && p.name === podName && (uid === undefined || p.uid === uid));
    if (!pod) return text(res, 404, 'pod does not exist');
    const c = pod.containers.find((x) => x.name === container && x.state === 'running') ?? pod.containers.find((x) => x.name === container);
    if (!c) return text(res, 500, `container not found ("${container}")`);
    try {
      const out = await this.o.runtime.execSync(c.id.replace(/^[a-z0-9-]+:\/\//, ''), cmd, 0);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(Buffer.concat([Buffer.from(out.stdout), Buffer.from(out.stderr)]));
    } catch (err) {
      text(res, 500, (err as Error).message);
    }
  }

  /** a streaming path asked without an upgrade: the errors kubelet finds first, else a refusal */
  async streamWithoutUpgrade(res: ServerResponse, url: URL): Promise<void> {
    const r = parseStreamRequest(url.pathname, url.searchParams);
    if (!r) return text(res, 404, '404 page not found\n');
    try {
      await streamingUrl(r, await this.o.runningPods(), { exec: async () => '', attach: async () => '', portForward: async () => '' });
    } catch (err) {
      if (err instanceof StreamError) return json(res, err.code, statusBody(err.code, err.message));
      throw err;
    }
    json(res, 400, statusBody(400, 'Upgrade request required'));
  }

  /** an upgrade request on a streaming path: proxied to the runtime's streaming server */
  async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<void> {
    const r = parseStreamRequest(url.pathname, url.searchParams);
    if (!r) return writeRawResponse(socket, 404, 'text/plain; charset=utf-8', '404 page not found\n');
    let target: string;
    try {
      target = await streamingUrl(r, await this.o.runningPods(), this.o.runtime);
    } catch (err) {
      const code = err instanceof StreamError ? err.code : (err as { code?: number }).code === 5 ? 404 : 500;
      return writeRawStatus(socket, code, (err as Error).message);
    }
    await proxyUpgrade(req, socket, head, target);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function listen(server: http.Server, port: number, address: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address === '' ? undefined : address, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** starts the main port, the read-only port when configured, and the healthz port when configured */
export async function startAgentServer(o: AgentServerOptions): Promise<AgentServer> {
  const clientCa = o.authentication.clientCAFile ? fs.readFileSync(o.authentication.clientCAFile, 'utf8') : undefined;
  const auth = new AgentAuth({ authentication: { ...o.authentication, clientCa }, authorization: o.authorization, client: o.client, nodeName: o.nodeName });
  const cert = o.tls.certificates
    ? (o.tls.certificates.current() ?? { cert: undefined, key: undefined })
    : agentServingCertificate({ tlsCertFile: o.tls.certFile, tlsPrivateKeyFile: o.tls.privateKeyFile, certDir: o.tls.certDir, hostname: o.tls.hostname, nodeIps: o.tls.nodeIps });
  const routes = new Routes(o);
  const log = o.logger;

  const fail = (req: IncomingMessage, res: ServerResponse, err: unknown) => {
    log.error({ err, path: req.url }, 'Request failed');
    if (!res.headersSent) text(res, 500, 'Internal Server Error\n');
    else res.destroy();
  };

  const tlsOptions: https.ServerOptions = { cert: cert.cert, key: cert.key, minVersion: o.tls.minVersion ?? 'TLSv1.2' };
  if (clientCa) Object.assign(tlsOptions, { ca: clientCa, requestCert: true, rejectUnauthorized: false });
  if (o.tls.cipherSuites?.length) tlsOptions.ciphers = o.tls.cipherSuites.join(':');
  const main = https.createServer(tlsOptions, (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'https://node');
      const outcome = await auth.check(req);
      if (!outcome.ok) return text(res, outcome.code, outcome.message);
      const handler = routes.default(url.pathname) ?? routes.debugging(url.pathname);
      if (!handler) return text(res, 404, '404 page not found\n');
      await handler(req, res, url);
    })().catch((err: unknown) => fail(req, res, err));
  });
  // without a pair yet, handshakes fail until one comes (kubelet: "no serving certificate available")
  o.tls.certificates?.onChange((pair) => main.setSecureContext({ ...tlsOptions, cert: pair.cert, key: pair.key }));
  const upgraded = new Set<Duplex>();
  main.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    void (async () => {
      const url = new URL(req.url ?? '/', 'https://node');
      const outcome = await auth.check(req);
      if (!outcome.ok) return writeRawResponse(socket, outcome.code, 'text/plain; charset=utf-8', outcome.message);
      await routes.upgrade(req, socket, head, url);
    })().catch((err: unknown) => {
      log.error({ err, path: req.url }, 'Streaming request failed');
      if (!socket.destroyed) writeRawStatus(socket, 500, (err as Error).message);
    });
  });
  const servers: http.Server[] = [main];
  const port = await listen(main, o.port, o.address);
  log.info({ address: o.address, port }, 'Starting to listen');

  let readOnlyPort = 0;
  if (o.readOnlyPort !== 0) {
    const readOnly = http.createServer((req, res) => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://node');
        if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, '405: Method Not Allowed\n');
        const handler = routes.default(url.pathname);
        if (!handler) return text(res, 404, '404 page not found\n');
        await handler(req, res, url);
      })().catch((err: unknown) => fail(req, res, err));
    });
    servers.push(readOnly);
    readOnlyPort = await listen(readOnly, o.readOnlyPort < 0 ? 0 : o.readOnlyPort, o.address);
    log.info({ address: o.address, port: readOnlyPort }, 'Starting to listen read-only');
  }

  let healthzPort = 0;
  if (o.healthzPort !== 0) {
    const ping = healthz(new Map([['ping', () => undefined]]));
    const health = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://node');
      if (url.pathname === '/healthz' || url.pathname.startsWith('/healthz/')) {
        // kubelet's healthz port knows only ping
        return void ping(req, res, url);
      }
      text(res, 404, '404 page not found\n');
    });
    servers.push(health);
    healthzPort = await listen(health, o.healthzPort < 0 ? 0 : o.healthzPort, o.healthzBindAddress);
  }

  return {
    port,
    readOnlyPort,
    healthzPort,
    certificate: cert.cert ?? '',
    async close() {
      for (const s of upgraded) s.destroy();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };
}
