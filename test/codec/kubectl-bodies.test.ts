/**
 * The exact bytes kubectl 1.32.5 sent to the real server (recorded with a logging proxy, see
 * test/codec/fixtures): they decode to the JSON kubectl would have sent, and re-encode byte for byte.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { codec } from './helpers';

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, 'fixtures', `kubectl-1.32-${name}.pb`));

const expected: Record<string, unknown> = {
  'create-deployment': {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    metadata: { name: 'x', creationTimestamp: null, labels: { app: 'x' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'x' } },
      template: { metadata: { creationTimestamp: null, labels: { app: 'x' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] } },
      strategy: {},
    },
    status: {},
  },
  'create-job': {
    kind: 'Job',
    apiVersion: 'batch/v1',
    metadata: { name: 'j1', creationTimestamp: null },
    spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: [{ name: 'j1', image: 'busybox', command: ['echo', 'hi'], resources: {} }], restartPolicy: 'Never' } } },
    status: {},
  },
  'create-namespace': { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'ns1', creationTimestamp: null }, spec: {}, status: {} },
  'create-configmap': { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm1', creationTimestamp: null }, data: { a: '1', b: 'two' } },
  'create-cronjob': {
    kind: 'CronJob',
    apiVersion: 'batch/v1',
    metadata: { name: 'cj1', creationTimestamp: null },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: {
        metadata: { name: 'cj1', creationTimestamp: null },
        spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: [{ name: 'cj1', image: 'busybox', command: ['echo', 'hi'], resources: {} }], restartPolicy: 'OnFailure' } } },
      },
    },
    status: {},
  },
  'auth-can-i': {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
    status: { allowed: false },
  },
};

for (const [name, want] of Object.entries(expected)) {
  t.test(`kubectl 1.32 ${name.replace('-', ' ')}`, async (t) => {
    const bytes = fixture(name);
    const obj = codec.decodeObject(bytes);
    t.same(obj, want, 'decodes to what kubectl sends as JSON');
    t.same(Object.keys(obj).slice(0, 2), ['kind', 'apiVersion'], 'TypeMeta first, as kube writes JSON');
    t.ok(codec.encodeObject(obj).equals(bytes), 'encodes back to the identical bytes');
  });
}
