import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { create, fields, kind } from './helpers';

const def = kind('', 'v1', 'Pod');

function pod(spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } };
}

t.test('defaults, pending status and QoS class', async (t) => {
  const p = pod();
  t.same(create(def, p), []);
  const spec = p.spec as any;
  t.equal(spec.containers[0].imagePullPolicy, 'Always', 'no tag means latest');
  t.equal(spec.enableServiceLinks, true);
  t.same(p.status, { phase: 'Pending', qosClass: 'BestEffort' });
});

t.test('pull policy by tag and digest', async (t) => {
  const p = pod({
    containers: [
      { name: 'a', image: 'nginx:latest' },
      { name: 'b', image: 'nginx:1.25' },
      { name: 'c', image: 'registry:5000/nginx' },
      { name: 'd', image: 'nginx@sha256:abc' },
    ],
  });
  create(def, p);
  t.same((p.spec as any).containers.map((c: any) => c.imagePullPolicy), ['Always', 'IfNotPresent', 'Always', 'IfNotPresent']);
});

t.test('requests default to limits; Guaranteed and Burstable', async (t) => {
  const g = pod({ containers: [{ name: 'c', image: 'x:1', resources: { limits: { cpu: '1', memory: '1Gi' } } }] });
  create(def, g);
  t.same((g.spec as any).containers[0].resources.requests, { cpu: '1', memory: '1Gi' });
  t.equal((g.status as any).qosClass, 'Guaranteed');
  const b = pod({ containers: [{ name: 'c', image: 'x:1', resources: { requests: { cpu: '100m' } } }] });
  create(def, b);
  t.equal((b.status as any).qosClass, 'Burstable');
});

t.test('validation: policies, ports, env, mounts', async (t) => {
  const p = pod({
    restartPolicy: 'Sometimes',
    dnsPolicy: 'Nope',
    containers: [
      {
        name: 'c',
        image: 'x',
        terminationMessagePolicy: 'Bad',
        ports: [{ containerPort: 80, protocol: 'HTTP' }],
        env: [{ name: '' }],
        volumeMounts: [{ name: 'missing', mountPath: '/data' }],
      },
    ],
  });
  const causes = create(def, p);
  t.same(fields(causes), [
    'spec.containers[0].terminationMessagePolicy',
    'spec.containers[0].ports[0].protocol',
    'spec.containers[0].env[0].name',
    'spec.containers[0].volumeMounts[0].name',
    'spec.restartPolicy',
    'spec.dnsPolicy',
  ]);
  t.equal(causes[1].message, 'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"');
  t.equal(causes[3].message, 'Not found: "missing"');
  t.equal(causes[4].message, 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"');
});

t.test('containers are required', async (t) => {
  const p = pod({ containers: [] });
  t.same(create(def, p), [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }]);
});

t.test('updates may change images and lower activeDeadlineSeconds only', async (t) => {
  const old = pod({ activeDeadlineSeconds: 100 });
  create(def, old);
  const ok = JSON.parse(JSON.stringify(old));
  ok.spec.containers[0].image = 'busybox:2';
  ok.spec.activeDeadlineSeconds = 50;
  ok.spec.tolerations = [{ key: 'k', operator: 'Exists' }];
  t.same(def.strategy.validate(ok, old), []);
  const bad = JSON.parse(JSON.stringify(old));
  bad.spec.containers[0].command = ['sh'];
  const causes = def.strategy.validate(bad, old);
  t.equal(causes.length, 1);
  t.equal(causes[0].field, 'spec');
  t.equal(causes[0].reason, 'FieldValueForbidden');
  t.match(causes[0].message, /^Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
  const raise = JSON.parse(JSON.stringify(old));
  raise.spec.activeDeadlineSeconds = 200;
  t.match(def.strategy.validate(raise, old), [{ field: 'spec.activeDeadlineSeconds', message: /must be less than or equal to previous value/ }]);
});

t.test('a terminal phase is final', async (t) => {
  const old = pod();
  old.status = { phase: 'Succeeded' };
  const next = { ...old, status: { phase: 'Running' } };
  t.match(def.strategy.validateStatus!(next, old), [{ field: 'status.phase', reason: 'FieldValueForbidden' }]);
});

t.test('field labels and grace period', async (t) => {
  const p = pod({ nodeName: 'n1', hostNetwork: true });
  create(def, p);
  (p.status as any).podIPs = [{ ip: '10.0.0.5' }];
  t.same(def.selectableFields!(p), {
    'spec.nodeName': 'n1',
    'spec.restartPolicy': 'Always',
    'spec.schedulerName': 'default-scheduler',
    'spec.serviceAccountName': '',
    'spec.hostNetwork': 'true',
    'status.phase': 'Pending',
    'status.podIP': '10.0.0.5',
    'status.nominatedNodeName': '',
  });
  t.equal(def.deleteGracePeriod!(p), 30);
  (p.spec as any).terminationGracePeriodSeconds = 5;
  t.equal(def.deleteGracePeriod!(p), 5);
});

t.test('table: ready, status, restarts, age, wide columns', async (t) => {
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
  const now = new Date('2024-01-02T00:00:00Z');
  const p = pod({ containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }], nodeName: 'n1' });
  p.metadata!.creationTimestamp = '2024-01-01T22:00:00Z';
  p.status = {
    phase: 'Running',
    podIPs: [{ ip: '10.1.1.1' }],
    containerStatuses: [
      { name: 'a', ready: true, restartCount: 0, state: { running: {} } },
      { name: 'b', ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: '2024-01-01T23:59:30Z' } } },
    ],
  };
  t.same(def.table!.cells(p, now), ['p', '1/2', 'CrashLoopBackOff', '2 (30s ago)', '120m', '10.1.1.1', 'n1', '<none>', '<none>']);
  const pending = pod();
  pending.status = { phase: 'Pending' };
  t.same(def.table!.cells(pending, now).slice(0, 4), ['p', '0/1', 'Pending', '0']);
  const done = pod();
  done.status = { phase: 'Succeeded', containerStatuses: [{ name: 'c', ready: false, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] };
  t.equal(def.table!.cells(done, now)[2], 'Completed');
  const deleting = pod();
  deleting.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z';
  deleting.status = { phase: 'Running' };
  t.equal(def.table!.cells(deleting, now)[2], 'Terminating');
});
