/**
 * Connect subresources reaching a node agent, pods and services: a fake agent (HTTPS with its own
 * CA, asking for a client certificate) records what it gets; the API app runs in this process
 * behind an HTTP server that hands upgrades to it as the real listener does.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import type { Test } from 'tap';
import { createApiServerApp } from '../../src/http/app';
import { NodeAgentClient } from '../../src/server/node-agent-client';
import { makeFixture, write } from '../helpers/registry-fixture';
import { makeCa, makeCert } from '../helpers/test-pki';
import type { KubeObject } from '../../src/api/kind';
import { getJson, testVersion } from './helpers';

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  clientCN?: string;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-agent-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
const ca = makeCa(dir, 'agent-ca');
const agentCert = makeCert(dir, 'agent', ca, { commonName: 'node-1', ips: ['127.0.0.1'], usage: 'server' });
const clientCert = makeCert(dir, 'client', ca, { commonName: 'kube-apiserver-kubelet-client', organization: 'system:masters', usage: 'client' });

async function listen(t: Test, server: http.Server | https.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}

/** the fake agent: logs, an error for container "bad", an upgrade that echoes bytes back */
async function fakeAgent(t: Test) {
  const seen: Seen[] = [];
  const record = (req: http.IncomingMessage) => {
    const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate?.();
    seen.push({ url: req.url ?? '', headers: req.headers, clientCN: peer?.subject?.CN as string | undefined });
  };
  const server = https.createServer({ cert: agentCert.cert, key: agentCert.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    record(req);
    if (req.url?.startsWith('/containerLogs/default/p/bad')) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('container "bad" in pod "p" is waiting to start: ContainerCreating');
      return;
    }
    if (req.url?.startsWith('/containerLogs/')) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('line 1\nline 2\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`agent ${req.method} ${req.url}`);
  });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
    record(req);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${req.headers.upgrade}\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n`);
    socket.on('data', (d: Buffer) => socket.write(Buffer.concat([Buffer.from('echo:'), d])));
  });
  return { seen, port: await listen(t, server) };
}

async function serve(t: Test, agentPort: number) {
  const f = await makeFixture();
  const nodeAgent = new NodeAgentClient({ ca: ca.cert, cert: clientCert.cert, key: clientCert.key, preferredAddressTypes: ['Hostname', 'InternalIP'], timeoutMs: 5000 });
  const { app } = createApiServerApp({
    scheme: f.scheme, registry: f.registry, logger: pino({ level: 'silent' }), health: [], version: testVersion,
    connect: { nodeAgent, nodes: f.kind('nodes'), endpoints: f.kind('endpoints') },
  });
  const callback = app.callback();
  const server = http.createServer(callback);
  // as src/http/server.ts: an upgrade reaches the app on its own socket
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (head.length > 0) socket.unshift(head);
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as net.Socket);
    res.once('finish', () => socket.end());
    callback(req, res);
  });
  const port = await listen(t, server);
  t.teardown(() => f.close());
  await f.registry.create(f.target('nodes'), {
    apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' },
    status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: agentPort } } },
  } as KubeObject, write);
  const pods = f.target('pods', 'default');
  await f.registry.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'x' }, { name: 'bad', image: 'x' }] } } as KubeObject, write);
  await f.registry.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'one' }, spec: { nodeName: 'node-1', containers: [{ name: 'only', image: 'x' }] } } as KubeObject, write);
  return { f, port, url: `http://127.0.0.1:${port}` };
}

const NS = '/api/v1/namespaces/default';

t.test('pods/log: the agent is found by address type and port, the query mapped, the stream passed back, errors as kube', async (t) => {
  const agent = await fakeAgent(t);
  const { url } = await serve(t, agent.port);
  const res = await fetch(`${url}${NS}/pods/p/log?container=app&follow=true&tailLines=2&timestamps=true&sinceSeconds=10&limitBytes=100&previous=false`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/plain/);
  t.equal(await res.text(), 'line 1\nline 2\n');
  t.equal(agent.seen[0].url, '/containerLogs/default/p/app?follow=true&limitBytes=100&sinceSeconds=10&tailLines=2&timestamps=true');
  t.equal(agent.seen[0].clientCN, 'kube-apiserver-kubelet-client', 'the client certificate is presented');

  t.equal(await (await fetch(`${url}${NS}/pods/one/log`)).text(), 'line 1\nline 2\n', 'the only container is the default');
  t.equal(agent.seen[1].url, '/containerLogs/default/one/only');

  const sinceTime = await fetch(`${url}${NS}/pods/one/log?sinceTime=2024-01-02T03:04:05.678Z`);
  t.equal(sinceTime.status, 200);
  t.equal(agent.seen[2].url, '/containerLogs/default/one/only?sinceTime=2024-01-02T03%3A04%3A05Z');

  t.match(await getJson(`${url}${NS}/pods/p/log?container=bad`), { status: 400, body: { reason: 'BadRequest', message: 'container "bad" in pod "p" is waiting to start: ContainerCreating' } });
  t.match(await getJson(`${url}${NS}/pods/one/log?tailLines=-1`), {
    status: 422,
    body: { reason: 'Invalid', message: 'PodLogOptions "one" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0' },
  });
  t.match(await getJson(`${url}${NS}/pods/one/log?sinceSeconds=0&limitBytes=0`), { status: 422, body: { message: /limitBytes: Invalid value: 0: must be greater than 0, sinceSeconds: Invalid value: 0: must be greater than 0/ } });
  t.match(await getJson(`${url}${NS}/pods/one/log?sinceSeconds=5&sinceTime=2024-01-02T03:04:05Z`), { status: 422, body: { message: /at most one of `sinceTime` or `sinceSeconds` may be specified/ } });
  t.match(await getJson(`${url}${NS}/pods/p/log`), { status: 400, body: { message: 'a container name must be specified for pod p, choose one of: [app bad]' } });
});

t.test('pods/log: an agent with a certificate the CA does not sign is refused (503)', async (t) => {
  const other = makeCa(dir, 'other-ca');
  const wrongCert = makeCert(dir, 'wrong', other, { commonName: 'x', ips: ['127.0.0.1'], usage: 'server' });
  const server = https.createServer({ cert: wrongCert.cert, key: wrongCert.key }, (_req, res) => res.end('nope'));
  const port = await listen(t, server);
  const { url } = await serve(t, port);
  t.match(await getJson(`${url}${NS}/pods/one/log`), { status: 503, body: { reason: 'ServiceUnavailable', message: /error trying to reach service/ } });
});

/** a raw upgrade request; resolves with the response head and the socket */
function rawUpgrade(port: number, pathAndQuery: string, headers: Record<string, string>): Promise<{ head: string; socket: net.Socket; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const lines = [`POST ${pathAndQuery} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''];
      socket.write(lines.join('\r\n'));
    });
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      resolve({ head: buf.subarray(0, end).toString(), socket, rest: buf.subarray(end + 4) });
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

t.test('pods/exec, attach, portforward: the SPDY upgrade is relayed to the agent and bytes flow both ways', async (t) => {
  const agent = await fakeAgent(t);
  const { port } = await serve(t, agent.port);
  const up = await rawUpgrade(port, `${NS}/pods/one/exec?command=sh&command=-c&command=echo%20hi&stdin=true&stdout=true&tty=true`, {
    Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io', Authorization: 'Bearer secret',
  });
  t.match(up.head, /^HTTP\/1.1 101 /);
  t.match(up.head, /X-Stream-Protocol-Version: v4.channel.k8s.io/);
  const echoed = new Promise<string>((resolve) => up.socket.once('data', (d: Buffer) => resolve(d.toString())));
  up.socket.write('ping');
  t.equal(await echoed, 'echo:ping');
  up.socket.destroy();
  const seen = agent.seen[0];
  t.equal(seen.url, '/exec/default/one/only?input=1&output=1&tty=1&command=sh&command=-c&command=echo+hi');
  t.equal(seen.headers.upgrade, 'SPDY/3.1');
  t.equal(seen.headers['x-stream-protocol-version'], 'v4.channel.k8s.io');
  t.equal(seen.headers.authorization, undefined, "the client's credential is not passed on");

  const attach = await rawUpgrade(port, `${NS}/pods/p/attach?container=app&stdout=true&stderr=true`, { Connection: 'Upgrade', Upgrade: 'SPDY/3.1' });
  t.match(attach.head, /^HTTP\/1.1 101 /);
  attach.socket.destroy();
  t.equal(agent.seen[1].url, '/attach/default/p/app?output=1&error=1');

  const pf = await rawUpgrade(port, `${NS}/pods/one/portforward?ports=8080&ports=9090`, { Connection: 'Upgrade', Upgrade: 'SPDY/3.1' });
  t.match(pf.head, /^HTTP\/1.1 101 /);
  pf.socket.destroy();
  t.equal(agent.seen[2].url, '/portForward/default/one?port=8080%2C9090');
});

t.test('exec checks its options; a v4 WebSocket is relayed to the agent (v5 and tunnelling: connect-websocket.test.ts)', async (t) => {
  const agent = await fakeAgent(t);
  const { url, port } = await serve(t, agent.port);
  t.match(await getJson(`${url}${NS}/pods/one/exec?stdout=true`, { method: 'POST' }), { status: 400, body: { message: 'you must specify at least 1 command' } });
  t.match(await getJson(`${url}${NS}/pods/one/exec?command=ls`, { method: 'POST' }), { status: 400, body: { message: 'you must specify at least one of stdin, stdout, stderr' } });
  t.equal(agent.seen.length, 0, 'the agent never saw the refused requests');
  const ws = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' };
  const v4 = await rawUpgrade(port, `${NS}/pods/one/exec?command=ls&stdout=true`, { ...ws, 'Sec-WebSocket-Protocol': 'v4.channel.k8s.io' });
  t.match(v4.head, /^HTTP\/1.1 101 /);
  v4.socket.destroy();
  t.equal(agent.seen[0].headers['sec-websocket-protocol'], 'v4.channel.k8s.io');
});

t.test('pods/proxy, services/proxy and nodes/proxy', async (t) => {
  const agent = await fakeAgent(t);
  const backend = http.createServer((req, res) => {
    if (req.url === '/moved') {
      res.writeHead(302, { location: `http://127.0.0.1:${(backend.address() as AddressInfo).port}/there?x=1` }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'x-backend': 'yes' }).end(`backend ${req.method} ${req.url}`);
  });
  const backendPort = await listen(t, backend);
  const { f, url } = await serve(t, agent.port);
  const pods = f.target('pods', 'default');
  await f.registry.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'w', image: 'x' }] } } as KubeObject, write);
  const webTarget = f.target('pods', 'default', 'web');
  const web = await f.registry.get(webTarget, {});
  await f.registry.updateStatus(webTarget, { ...web, status: { podIP: '127.0.0.1' } }, write);
  const r = await fetch(`${url}${NS}/pods/web:${backendPort}/proxy/a/b?q=1`);
  t.equal(await r.text(), 'backend GET /a/b?q=1');
  t.equal(r.headers.get('x-backend'), 'yes');
  const bare = await fetch(`${url}${NS}/pods/web:${backendPort}/proxy`, { redirect: 'manual' });
  t.equal(bare.status, 301, 'the bare proxy path is redirected to the one with a slash');
  t.equal(bare.headers.get('location'), `${NS}/pods/web:${backendPort}/proxy/`);
  const moved = await fetch(`${url}${NS}/pods/web:${backendPort}/proxy/moved`, { redirect: 'manual' });
  t.equal(moved.headers.get('location'), `${NS}/pods/web:${backendPort}/proxy/there?x=1`, 'a redirect to the backend goes through the proxy again');

  await f.registry.create(f.target('services', 'default'), { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ name: 'http', port: 80, targetPort: backendPort }] } } as KubeObject, write);
  await f.registry.create(f.target('endpoints', 'default'), {
    apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'svc' },
    subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'http', port: backendPort }] }],
  } as KubeObject, write);
  const s = await fetch(`${url}${NS}/services/svc:http/proxy/hello`, { method: 'POST', body: 'x' });
  t.equal(await s.text(), 'backend POST /hello');
  t.equal(await (await fetch(`${url}${NS}/services/svc:80/proxy/n`)).text(), 'backend GET /n', 'a service port number means its name');
  t.match(await getJson(`${url}${NS}/services/svc:other/proxy/`), { status: 503, body: { message: 'no endpoints available for service "svc"' } });

  const n = await fetch(`${url}/api/v1/nodes/node-1/proxy/stats/summary?only=1`);
  t.equal(await n.text(), 'agent GET /stats/summary?only=1');
  t.equal(agent.seen.at(-1)?.clientCN, 'kube-apiserver-kubelet-client');
});

t.test('the agent address follows the preferred address types; a node without one is an internal error', async (t) => {
  const c = new NodeAgentClient({ preferredAddressTypes: ['InternalDNS', 'InternalIP', 'Hostname'], timeoutMs: 1000 });
  const node = (addresses: Array<{ type: string; address: string }>, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', labels }, status: { addresses } }) as KubeObject;
  t.same(c.location(node([{ type: 'Hostname', address: 'h' }, { type: 'InternalIP', address: '10.0.0.1' }])), { host: '10.0.0.1', port: 10250 });
  t.same(c.location(node([], { 'kubernetes.io/hostname': 'from-label' })), { host: 'from-label', port: 10250 });
  t.throws(() => c.location(node([{ type: 'ExternalIP', address: '1.2.3.4' }])), /no preferred addresses found; known addresses: \[\{ExternalIP 1.2.3.4\}\]/);
  t.equal(c.tls().rejectUnauthorized, false, 'without a CA kube does not verify the agent');
});
