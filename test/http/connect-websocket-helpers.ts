/**
 * For the WebSocket connect tests: a SPDY server end good enough to stand for a runtime's streaming server (it reads our
 * stored-block header blocks, replies to streams, sends data, FIN, status and GOAWAY), and the API
 * app behind a plain HTTP server with a fake agent over HTTPS as test/http/connect-agent.test.ts has.
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
import type { Test } from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { createApiServerApp } from '../../src/http/app';
import { FLAG_FIN, FrameType, SpdyFrameReader, dataFrame, goAwayFrame } from '../../src/http/proxy/spdy-frames';
import { readHeaderBlock } from './connect-websocket-clients';
import { NodeAgentClient } from '../../src/server/node-agent-client';
import { makeFixture, write } from '../helpers/registry-fixture';
import { makeCa, makeCert } from '../helpers/test-pki';
import { testVersion } from './helpers';

export interface ServerStream {
  id: number;
  type: string;
  data: Buffer[];
  finished: boolean;
}

/**
 * The server end of a SPDY session on `socket`: streams are replied to as they open;
 * `onStreams` runs once `expected` streams are open, as kube's server waits for them.
 */
export function spdyServer(socket: Duplex, expected: number, onStreams: (s: SpdyServerSession) => void): SpdyServerSession {
  const reader = new SpdyFrameReader();
  const session: SpdyServerSession = {
    streams: new Map(),
    byType: (type) => [...session.streams.values()].find((s) => s.type === type),
    send: (type, data, fin = false) => {
      const s = session.byType(type);
      if (s) socket.write(dataFrame(s.id, fin ? FLAG_FIN : 0, Buffer.from(data)));
    },
    finish: (type) => session.send(type, '', true),
    goAway: () => {
      socket.write(goAwayFrame(0));
      socket.end();
    },
    onData: () => {},
    onFin: () => {},
  };
  let first = true;
  let started = false;
  socket.on('data', (chunk: Buffer) => {
    for (const f of reader.push(chunk)) {
      if (f.control && f.type === FrameType.SynStream) {
        const id = f.payload.readUInt32BE(0) & 0x7fffffff;
        const headers = readHeaderBlock(f.payload.subarray(10), first);
        first = false;
        session.streams.set(id, { id, type: headers.streamtype ?? '', data: [], finished: false });
        // SYN_REPLY: the stream id and an (ignored) header block
        const payload = Buffer.alloc(4);
        payload.writeUInt32BE(id, 0);
        const head = Buffer.alloc(8);
        head.writeUInt16BE(0x8003, 0);
        head.writeUInt16BE(FrameType.SynReply, 2);
        head.writeUIntBE(payload.length, 5, 3);
        socket.write(Buffer.concat([head, payload]));
        if (!started && session.streams.size === expected) {
          started = true;
          onStreams(session);
        }
      } else if (!f.control) {
        const s = session.streams.get(f.streamId);
        if (!s) continue;
        if (f.data.length > 0) {
          s.data.push(f.data);
          session.onData(s, f.data);
        }
        if (f.flags & FLAG_FIN) {
          s.finished = true;
          session.onFin(s);
        }
      }
    }
  });
  return session;
}

export interface SpdyServerSession {
  streams: Map<number, ServerStream>;
  byType(type: string): ServerStream | undefined;
  send(type: string, data: string | Buffer, fin?: boolean): void;
  finish(type: string): void;
  goAway(): void;
  onData: (s: ServerStream, d: Buffer) => void;
  onFin: (s: ServerStream) => void;
}

export interface SeenRequest {
  url: string;
  headers: http.IncomingHttpHeaders;
}

export type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, seen: SeenRequest) => void;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-ws-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
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

/** a fake agent whose upgrades `onUpgrade` serves; plain requests answer 404 with a Status */
export async function fakeAgent(t: Test, onUpgrade: UpgradeHandler) {
  const seen: SeenRequest[] = [];
  const server = https.createServer({ cert: agentCert.cert, key: agentCert.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'pod does not exist', reason: 'NotFound', code: 404 }));
  });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
    const s = { url: req.url ?? '', headers: req.headers };
    seen.push(s);
    onUpgrade(req, socket, s);
  });
  return { seen, port: await listen(t, server) };
}

/** the API app (node-1 at the agent's port; pods `one` with container `only`, `two` with `a` and `b`) */
export async function serveApi(t: Test, agentPort: number) {
  const f = await makeFixture();
  const nodeAgent = new NodeAgentClient({ ca: ca.cert, cert: clientCert.cert, key: clientCert.key, preferredAddressTypes: ['InternalIP'], timeoutMs: 5000 });
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
  await f.registry.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'one' }, spec: { nodeName: 'node-1', containers: [{ name: 'only', image: 'x' }] } } as KubeObject, write);
  await f.registry.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'two' }, spec: { nodeName: 'node-1', containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }] } } as KubeObject, write);
  await f.registry.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unbound' }, spec: { containers: [{ name: 'c', image: 'x' }] } } as KubeObject, write);
  return { port, ws: `ws://127.0.0.1:${port}/api/v1/namespaces/default` };
}

/** the 101 a streaming server answers a SPDY upgrade with */
export function switchToSpdy(socket: Duplex, protocol: string): void {
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
}

export { WebSocket, rawWebSocket, recordingClient } from './connect-websocket-clients';
