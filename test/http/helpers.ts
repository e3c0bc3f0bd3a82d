/** Shared setup for HTTP tests: a tiny scheme of test kinds and the app served on 127.0.0.1:0. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { KindDefinition } from '../../src/api/kind';
import { Scheme } from '../../src/api/scheme';
import { createApiServerApp } from '../../src/http/app';
import type { ApiServerAppOptions, HealthCheck } from '../../src/http/app';
import { FakeRegistry } from './fake-registry';

function kind(k: Partial<KindDefinition> & Pick<KindDefinition, 'group' | 'version' | 'kind' | 'resource' | 'singular' | 'namespaced'>): KindDefinition {
  return {
    listKind: `${k.kind}List`,
    shortNames: [],
    categories: [],
    storage: { group: k.group, resource: k.resource },
    storageVersion: k.group ? `${k.group}/${k.version}` : k.version,
    schemaName: `test.${k.kind}`,
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults: () => {}, validate: () => [] },
    ...k,
  };
}

/** namespaced, with status and scale subresources and its own table */
export const widgetKind = kind({
  group: 'test.ballast.io',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  singular: 'widget',
  namespaced: true,
  shortNames: ['wd'],
  categories: ['all'],
  statusSubresource: true,
  scale: {
    getSpecReplicas: () => 1,
    setSpecReplicas: () => {},
    getStatusReplicas: () => 1,
    getSelector: () => '',
  },
  table: {
    columns: [
      { name: 'Name', type: 'string', format: 'name', description: 'the name', priority: 0 },
      { name: 'Size', type: 'integer', format: '', description: 'the size', priority: 0 },
      { name: 'Color', type: 'string', format: '', description: 'the color', priority: 1 },
    ],
    cells: (obj) => [obj.metadata?.name, (obj.spec as { size?: number } | undefined)?.size ?? 0, 'blue'],
  },
});

/** an older version of the same group, to check preferred versions */
export const widgetBetaKind = kind({
  group: 'test.ballast.io',
  version: 'v1beta1',
  kind: 'Widget',
  resource: 'widgets',
  singular: 'widget',
  namespaced: true,
  storage: { group: 'test.ballast.io', resource: 'widgets' },
  storageVersion: 'test.ballast.io/v1',
});

/** core group, cluster-scoped, no subresources, default table, no deletecollection */
export const gadgetKind = kind({
  group: '',
  version: 'v1',
  kind: 'Gadget',
  resource: 'gadgets',
  singular: 'gadget',
  namespaced: false,
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
});

/** core group, namespaced (so /api/v1/namespaces/x/pieces works) */
export const pieceKind = kind({ group: '', version: 'v1', kind: 'Piece', resource: 'pieces', singular: 'piece', namespaced: true });

export const testVersion = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-ballast',
  gitCommit: 'abc',
  gitTreeState: 'clean',
  buildDate: '2025-01-01T00:00:00Z',
  goVersion: 'go1.23.4',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export interface TestServer {
  url: string;
  registry: FakeRegistry;
  shutdown(): void;
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startTestServer(
  opts: {
    health?: HealthCheck[];
    options?: ApiServerAppOptions['options'];
    registry?: FakeRegistry;
    authenticator?: ApiServerAppOptions['authenticator'];
    authorizer?: ApiServerAppOptions['authorizer'];
  } = {},
): Promise<TestServer> {
  const registry = opts.registry ?? new FakeRegistry();
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const { app, shutdown } = createApiServerApp({
    scheme: new Scheme([widgetKind, widgetBetaKind, gadgetKind, pieceKind]),
    registry,
    logger,
    health: opts.health ?? [{ name: 'etcd', check: async () => {} }],
    version: testVersion,
    options: opts.options,
    authenticator: opts.authenticator,
    authorizer: opts.authorizer,
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    registry,
    shutdown,
    logs,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** fetch and parse a JSON body */
export async function getJson(url: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the raw text
  }
  return { status: res.status, headers: res.headers, body };
}
