/**
 * The real app (built-in kinds, the schema source, a registry over an in-memory store) on
 * 127.0.0.1:0, for OpenAPI and field-validation tests over HTTP.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApiServerApp } from '../../src/http/app';
import { testVersion } from '../http/helpers';
import { makeFixture } from '../helpers/registry-fixture';

export interface OpenApiTestServer {
  url: string;
  close(): Promise<void>;
}

export async function startRealServer(): Promise<OpenApiTestServer> {
  const fixture = await makeFixture('memory');
  const { app } = createApiServerApp({
    scheme: fixture.scheme,
    registry: fixture.registry,
    logger: pino({ level: 'silent' }),
    health: [],
    version: testVersion,
  });
  const server = http.createServer(app.callback());
  // as the real server (src/http/server.ts): Node's 5 s default closes a keep-alive connection while a
  // test is still comparing a large document, and the next fetch on it fails with ECONNRESET
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fixture.close();
    },
  };
}

/** every `$ref` value anywhere in a document */
export function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else refsIn(value, out);
    }
  }
  return out;
}
