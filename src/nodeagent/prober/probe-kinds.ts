/**
 * The three probe kinds, as kubelet 1.20's pkg/probe: each answers an outcome (success, failure, or
 * warning: a success worth an event) with its output, or throws when the probe could not run at all
 * (kubelet's probe.Unknown with an error: the prober retries, then reports "probe errored").
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { CriError } from '../cri/cri-error';
import type { RuntimeService } from '../types';

export interface ProbeOutcome {
  result: 'success' | 'failure' | 'warning';
  output: string;
}

/** kubelet keeps at most this much of an exec probe's output and of an HTTP probe's body (10 KiB) */
export const MAX_PROBE_OUTPUT_BYTES = 10 * 1024;
/** the User-Agent of kubelet 1.20's HTTP probes */
export const PROBE_USER_AGENT = 'kube-probe/1.20';
const MAX_REDIRECTS = 10;

/**
 * exec: the command in the container through ExecSync under the probe's timeout; exit 0 is success.
 * A timeout is a failure whose output says so (kube 1.20 with ExecProbeTimeout on).
 */
export async function execProbe(runtime: Pick<RuntimeService, 'execSync'>, containerId: string, cmd: string[], timeoutSeconds: number): Promise<ProbeOutcome> {
  let response;
  try {
    response = await runtime.execSync(containerId, cmd, timeoutSeconds);
  } catch (err) {
    if (err instanceof CriError && err.code === GrpcStatus.DEADLINE_EXCEEDED) {
      return { result: 'failure', output: `command ${JSON.stringify(cmd.join(' '))} timed out` };
    }
    throw err;
  }
  const output = Buffer.concat([response.stdout, response.stderr]).subarray(0, MAX_PROBE_OUTPUT_BYTES).toString();
  return { result: response.exitCode === 0 ? 'success' : 'failure', output };
}

/** Go's `dial tcp` error text for a Node connection error */
function dialError(address: string, err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${address}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${address}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${address}: connect: network is unreachable`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${address.replace(/:\d+$/, '')}: no such host`;
    default:
      return `dial tcp ${address}: ${err.message}`;
  }
}

function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** tcpSocket: a connection opened within the timeout is success; the dial error otherwise */
export function tcpProbe(host: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  const address = joinHostPort(host, port);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ result: 'failure', output: `dial tcp ${address}: i/o timeout` });
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ result: 'success', output: '' });
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ result: 'failure', output: dialError(address, err) });
    });
  });
}

interface HttpAnswer {
  status: number;
  location?: string;
  body: string;
}

function get(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<HttpAnswer> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(url, { method: 'GET', headers, signal, rejectUnauthorized: false, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (size >= MAX_PROBE_OUTPUT_BYTES) {
          response.destroy();
          finish();
          return;
        }
        chunks.push(chunk.subarray(0, MAX_PROBE_OUTPUT_BYTES - size));
        size += chunk.length;
      });
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        resolve({ status: response.statusCode ?? 0, location: response.headers.location, body: Buffer.concat(chunks).toString() });
      };
      response.on('end', finish);
      response.on('error', (err) => (size >= MAX_PROBE_OUTPUT_BYTES ? finish() : reject(err)));
    });
    request.on('error', reject);
    request.end();
  });
}

/**
 * httpGet: GET `url` with the headers (User-Agent kube-probe/1.20 and Accept `*\/*` unless given)
 * under the timeout, on a fresh connection each time (kube's probes disable keep-alive) and without
 * verifying an HTTPS server's certificate, as kube's. 200..399 is success; redirects are followed (10 at most) while they stay on the
 * same host: a redirect elsewhere is not followed and counts as success with a warning, as kube 1.20.
 * Any other status is a failure `HTTP probe failed with statuscode: <code>`; a connection error or
 * timeout is a failure with Go's error text.
 */
export async function httpProbe(url: URL, headers: Record<string, string>, timeoutMs: number): Promise<ProbeOutcome> {
  const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const sent: Record<string, string> = { ...headers };
  if (!names.has('user-agent')) sent['User-Agent'] = PROBE_USER_AGENT;
  if (!names.has('accept')) sent.Accept = '*/*';
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const first = url;
  let current = url;
  try {
    for (let redirects = 0; ; redirects++) {
      const answer = await get(current, sent, controller.signal);
      const redirect = [301, 302, 303, 307, 308].includes(answer.status) && answer.location !== undefined;
      if (redirect) {
        const next = new URL(answer.location as string, current);
        if (next.hostname !== first.hostname) return { result: 'warning', output: answer.body };
        if (redirects + 1 >= MAX_REDIRECTS) return { result: 'failure', output: `Get ${JSON.stringify(next.href)}: stopped after 10 redirects` };
        current = next;
        continue;
      }
      if (answer.status >= 200 && answer.status < 400) return { result: answer.status >= 300 ? 'warning' : 'success', output: answer.body };
      return { result: 'failure', output: `HTTP probe failed with statuscode: ${answer.status}` };
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const text = controller.signal.aborted ? 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)' : e.code && e.syscall === 'connect' ? dialError(joinHostPort(current.hostname.replace(/^\[|\]$/g, ''), Number(current.port) || (current.protocol === 'https:' ? 443 : 80)), e) : e.message;
    return { result: 'failure', output: `Get ${JSON.stringify(current.href)}: ${text}` };
  } finally {
    clearTimeout(timer);
  }
}
