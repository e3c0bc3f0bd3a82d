import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import { Scheme } from '../../src/api/scheme';
import { createApiServerApp } from '../../src/http/app';
import type { RequestFlowControl } from '../../src/http/middleware/priority-and-fairness';
import { RequestRejected } from '../../src/flowcontrol/queue-set';
import type { Classification } from '../../src/flowcontrol/flow-control';
import { FakeRegistry } from '../http/fake-registry';
import { testVersion, widgetKind } from '../http/helpers';

const WIDGETS = '/apis/test.ballast.io/v1/namespaces/ns1/widgets';

/** an app whose flow control is a stub recording what the middleware asked */
async function serve(t: Parameters<Parameters<typeof t.test>[1]>[0], admit: () => Promise<{ release(): void }>) {
  const calls = { classified: [] as string[], released: 0 };
  const flowControl: RequestFlowControl = {
    classify(user, info) {
      calls.classified.push(`${user.name} ${info.verb}`);
      return { flowSchema: { name: 'fs', uid: 'fs-uid' }, priorityLevel: { name: 'pl', uid: 'pl-uid' }, exempt: false, flowHash: 1n } satisfies Classification;
    },
    admit: () => admit().then((seat) => ({ release: () => { calls.released++; seat.release(); } })),
  };
  const { app } = createApiServerApp({
    scheme: new Scheme([widgetKind]),
    registry: new FakeRegistry(),
    logger: pino({ level: 'silent' }),
    health: [],
    version: testVersion,
    flowControl,
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

t.test('an admitted request carries the PF headers and gives its seat back', async (t) => {
  const { url, calls } = await serve(t, async () => ({ release: () => undefined }));
  const r = await fetch(`${url}${WIDGETS}`);
  t.equal(r.status, 200);
  t.equal(r.headers.get('x-kubernetes-pf-flowschema-uid'), 'fs-uid');
  t.equal(r.headers.get('x-kubernetes-pf-prioritylevel-uid'), 'pl-uid');
  t.same(calls.classified, ['system:anonymous list']);
  t.equal(calls.released, 1);
});

t.test('a rejected request is kube\'s 429 TooManyRequests Status with Retry-After and the headers', async (t) => {
  const { url } = await serve(t, () => Promise.reject(new RequestRejected('queue-full')));
  const r = await fetch(`${url}${WIDGETS}`);
  t.equal(r.status, 429);
  t.equal(r.headers.get('retry-after'), '1');
  t.equal(r.headers.get('x-kubernetes-pf-flowschema-uid'), 'fs-uid');
  t.same(await r.json(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Too many requests, please try again later.',
    reason: 'TooManyRequests',
    details: { retryAfterSeconds: 1 },
    code: 429,
  });
});

t.test('watches pass by unclassified (kube 1.20)', async (t) => {
  const { url, calls } = await serve(t, () => Promise.reject(new RequestRejected('queue-full')));
  const ctrl = new AbortController();
  const r = await fetch(`${url}${WIDGETS}?watch=1`, { signal: ctrl.signal });
  t.equal(r.status, 200);
  t.equal(r.headers.get('x-kubernetes-pf-flowschema-uid'), null);
  t.same(calls.classified, []);
  ctrl.abort();
});
