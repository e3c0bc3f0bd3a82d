/**
 * A small extension API server for aggregation tests, in the style of kube's sample-apiserver:
 * group wardle.example.com/v1alpha1 with a namespaced `flunders` resource (get, list, and a watch
 * that sends two events), legacy discovery only, /openapi/v2 (no v3), and a record of what it saw:
 * the front-proxy headers and the client certificate of every request. It serves HTTPS with its
 * own CA, a certificate for `<service>.<namespace>.svc`, and asks for (without requiring) a client
 * certificate.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { makeCa, makeCert } from './test-pki';
import type { TestCert } from './test-pki';

export const GROUP = 'wardle.example.com';
export const VERSION = 'v1alpha1';
export const GV = `${GROUP}/${VERSION}`;

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** the client certificate's subject CN, if one was presented */
  clientCN?: string;
}

export interface ExtensionServer {
  port: number;
  ca: TestCert;
  seen: SeenRequest[];
  /** bytes of an upgraded connection, echoed back after a 101 */
  close(): Promise<void>;
  /** listen again on the same port (after close) */
  restart(): Promise<void>;
}

const flunder = (name: string, namespace: string, rv: string, reference = '') => ({
  apiVersion: GV,
  kind: 'Flunder',
  metadata: { name, namespace, resourceVersion: rv, uid: `uid-${name}`, creationTimestamp: '2024-05-01T10:00:00Z' },
  spec: { reference },
  status: {},
});

const gvk = { group: GROUP, version: VERSION, kind: 'Flunder' };
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** the extension's OpenAPI v2 document: its paths and definitions (ObjectMeta trimmed, unlike ours) */
export function extensionOpenApi(): object {
  const base = `/apis/${GV}`;
  const flunderRef = { $ref: '#/definitions/com.example.wardle.v1alpha1.Flunder' };
  return {
    swagger: '2.0',
    info: { title: 'Wardle', version: 'v0' },
    paths: {
      [`${base}/namespaces/{namespace}/flunders`]: {
        get: {
          operationId: 'listWardleV1alpha1NamespacedFlunder',
          produces: ['application/json'],
          responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/com.example.wardle.v1alpha1.FlunderList' } } },
          'x-kubernetes-action': 'list',
          'x-kubernetes-group-version-kind': gvk,
        },
      },
      [`${base}/namespaces/{namespace}/flunders/{name}`]: {
        get: {
          operationId: 'readWardleV1alpha1NamespacedFlunder',
          produces: ['application/json'],
          responses: { '200': { description: 'OK', schema: flunderRef } },
          'x-kubernetes-action': 'get',
          'x-kubernetes-group-version-kind': gvk,
        },
      },
      '/version/': { get: { operationId: 'getCodeVersion', responses: { '200': { description: 'OK' } } } },
    },
    definitions: {
      'com.example.wardle.v1alpha1.Flunder': {
        description: 'A flunder of the wardle extension.',
        type: 'object',
        properties: {
          apiVersion: { description: 'APIVersion of the object.', type: 'string' },
          kind: { description: 'Kind of the object.', type: 'string' },
          metadata: { $ref: `#/definitions/${META}ObjectMeta` },
          spec: { $ref: '#/definitions/com.example.wardle.v1alpha1.FlunderSpec' },
        },
        'x-kubernetes-group-version-kind': [gvk],
      },
      'com.example.wardle.v1alpha1.FlunderSpec': {
        description: 'What a flunder refers to.',
        type: 'object',
        properties: {
          reference: { description: 'Name of the thing the flunder points at.', type: 'string', default: 'nothing' },
        },
      },
      'com.example.wardle.v1alpha1.FlunderList': {
        type: 'object',
        properties: { items: { type: 'array', items: flunderRef } },
        'x-kubernetes-group-version-kind': [{ ...gvk, kind: 'FlunderList' }],
      },
      [`${META}ObjectMeta`]: {
        description: 'Trimmed metadata of the wardle server.',
        type: 'object',
        properties: { name: { type: 'string' }, namespace: { type: 'string' } },
      },
      'com.example.wardle.v1alpha1.Unused': { type: 'object' },
    },
  };
}

function json(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startExtensionServer(opts: { service: string; namespace: string; port?: number }): Promise<ExtensionServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-ext-'));
  const ca = makeCa(dir, 'wardle-ca');
  const serving = makeCert(dir, 'wardle', ca, {
    commonName: `${opts.service}.${opts.namespace}.svc`,
    dnsNames: [`${opts.service}.${opts.namespace}.svc`, 'localhost'],
    ips: ['127.0.0.1'],
    usage: 'server',
  });
  const seen: SeenRequest[] = [];
  const server = https.createServer({ cert: serving.cert, key: serving.key, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const clientCN = peer && peer.subject ? String(peer.subject.CN) : undefined;
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCN });
    const url = new URL(req.url ?? '/', 'https://x');
    const p = url.pathname.replace(/\/$/, '');
    if (p === '/apis') {
      return json(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: GROUP, versions: [{ groupVersion: GV, version: VERSION }], preferredVersion: { groupVersion: GV, version: VERSION } }] });
    }
    if (p === `/apis/${GROUP}`) {
      return json(res, 200, { kind: 'APIGroup', apiVersion: 'v1', name: GROUP, versions: [{ groupVersion: GV, version: VERSION }], preferredVersion: { groupVersion: GV, version: VERSION } });
    }
    if (p === `/apis/${GV}`) {
      return json(res, 200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: GV,
        resources: [
          { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list', 'watch'], shortNames: ['fl'] },
          { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get'] },
        ],
      });
    }
    if (p === '/openapi/v2') return json(res, 200, extensionOpenApi());
    const list = new RegExp(`^/apis/${GV.replace('.', '\\.')}/namespaces/([^/]+)/flunders(?:/([^/]+))?$`).exec(p);
    if (list && req.method === 'GET') {
      const [, ns, name] = list;
      const watch = url.searchParams.get('watch');
      if (!name && (watch === 'true' || watch === '1')) {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
        res.write(`${JSON.stringify({ type: 'ADDED', object: flunder('first', ns, '11') })}\n`);
        const timer = setTimeout(() => res.write(`${JSON.stringify({ type: 'MODIFIED', object: flunder('first', ns, '12', 'changed') })}\n`), 300);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      if (name) return name === 'first' ? json(res, 200, flunder('first', ns, '10')) : json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `flunders.${GROUP} "${name}" not found` });
      return json(res, 200, { kind: 'FlunderList', apiVersion: GV, metadata: { resourceVersion: '10' }, items: [flunder('first', ns, '10')] });
    }
    json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
  });
  // a protocol upgrade: answer 101 and echo what follows
  server.on('upgrade', (req, socket) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(d));
  });
  const sockets = new Set<import('node:stream').Duplex>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const port = await listen(opts.port ?? 0);
  return {
    port,
    ca,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        fs.rmSync(dir, { recursive: true, force: true });
        for (const s of sockets) s.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
    restart: async () => {
      await listen(port);
    },
  };
}
