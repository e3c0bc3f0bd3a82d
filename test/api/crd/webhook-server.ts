/**
 * A conversion webhook for tests: an HTTPS server on 127.0.0.1 with a CA of its own (its PEM is the
 * CRD's caBundle) that converts CronTabs between stable.example.com/v1 (`spec.cronSpec`) and v2
 * (`spec.schedule`), answering in the ConversionReview version it was asked in.
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { AddressInfo } from 'node:net';
import { ensureServingPki } from '../../../src/server/pki';

export interface WebhookServer {
  url: string;
  port: number;
  /** base64 PEM of the CA */
  caBundle: string;
  /** review requests received */
  requests: Array<{ apiVersion: string; desiredAPIVersion: string; count: number }>;
  close(): Promise<void>;
}

type Obj = { apiVersion: string; spec?: Record<string, unknown>; [k: string]: unknown };

export function renameConversion(obj: Obj, desired: string): Obj {
  const out: Obj = structuredClone(obj);
  const spec = out.spec ?? {};
  if (desired.endsWith('/v2') && 'cronSpec' in spec) {
    spec.schedule = spec.cronSpec;
    delete spec.cronSpec;
  } else if (desired.endsWith('/v1') && 'schedule' in spec) {
    spec.cronSpec = spec.schedule;
    delete spec.schedule;
  }
  out.apiVersion = desired;
  return out;
}

export async function startWebhookServer(dnsNames: string[] = []): Promise<WebhookServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-webhook-'));
  const pki = ensureServingPki({ certDir: dir, dnsNames: ['localhost', ...dnsNames], ips: ['127.0.0.1'], logger: pino({ level: 'silent' }) });
  const requests: WebhookServer['requests'] = [];
  const server = https.createServer({ cert: pki.certChain, key: pki.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: { uid: string; desiredAPIVersion: string; objects: Obj[] } };
      requests.push({ apiVersion: review.apiVersion, desiredAPIVersion: review.request.desiredAPIVersion, count: review.request.objects.length });
      const body = {
        apiVersion: review.apiVersion,
        kind: 'ConversionReview',
        response: {
          uid: review.request.uid,
          convertedObjects: review.request.objects.map((o) => renameConversion(o, review.request.desiredAPIVersion)),
          result: { status: 'Success' },
        },
      };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/convert`,
    port,
    caBundle: Buffer.from(pki.caCert).toString('base64'),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          fs.rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}

/** a CronTab CRD with v1 (stored) and v2, converted by the webhook at clientConfig */
export function twoVersionCrd(clientConfig: Record<string, unknown>, reviewVersions = ['v1', 'v1beta1']): Record<string, unknown> {
  const schema = (field: string) => ({
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { [field]: { type: 'string' }, image: { type: 'string' }, replicas: { type: 'integer' } } },
        status: { type: 'object', properties: { replicas: { type: 'integer' } } },
      },
    },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema('cronSpec'), subresources: { status: {} } },
        { name: 'v2', served: true, storage: false, schema: schema('schedule'), subresources: { status: {} }, additionalPrinterColumns: [{ name: 'Schedule', type: 'string', jsonPath: '.spec.schedule' }] },
      ],
      conversion: { strategy: 'Webhook', webhook: { clientConfig, conversionReviewVersions: reviewVersions } },
    },
  };
}
