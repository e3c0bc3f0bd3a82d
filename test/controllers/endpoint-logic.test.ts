import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import { computeSubsets, repackSubsets, toleratesUnready } from '../../src/controllers/endpoint/subsets';
import { closestFit, planSlices } from '../../src/controllers/endpointslice/reconciler';
import { addressTypesFor, asSlice, type EndpointSlice } from '../../src/controllers/endpointslice/slice-util';
import { addressTypeOf, planMirror } from '../../src/controllers/endpointslicemirroring/reconciler';
import { formatTriggerTime, TriggerTimeTracker } from '../../src/controllers/util/trigger-time';

const svc = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'ns', uid: 'svc-uid', ...meta }, spec: { clusterIP: '10.0.0.10', ...spec },
});

function pod(name: string, ip: string | undefined, o: { ready?: boolean; ports?: { name: string; containerPort: number }[]; deleting?: boolean; restartPolicy?: string; phase?: string } = {}): KubeObject {
  return {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '1', ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { containers: [{ name: 'c', ports: o.ports ?? [] }], restartPolicy: o.restartPolicy ?? 'Always' },
    status: { phase: o.phase ?? 'Running', ...(ip ? { podIP: ip, podIPs: [{ ip }] } : {}), conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

t.test('computeSubsets: readiness, IPs, terminating pods, restart policies', async (t) => {
  const s = svc({ ports: [{ name: 'p', port: 80, targetPort: 8080, protocol: 'TCP' }] });
  const subsets = computeSubsets(s, [
    pod('a', '10.0.1.2'), pod('b', '10.0.1.1'), pod('c', '10.0.1.3', { ready: false }), pod('noip', undefined),
    pod('gone', '10.0.1.9', { deleting: true }), pod('done', '10.0.1.8', { ready: false, restartPolicy: 'Never', phase: 'Succeeded' }),
  ]);
  t.equal(subsets.length, 1);
  t.same(subsets[0]!.addresses!.map((a) => a.ip), ['10.0.1.1', '10.0.1.2'], 'ready, sorted by IP');
  t.same(subsets[0]!.notReadyAddresses!.map((a) => a.ip), ['10.0.1.3']);
  t.same(subsets[0]!.ports, [{ name: 'p', port: 8080, protocol: 'TCP' }]);
  t.ok(toleratesUnready(svc({}, { annotations: { 'service.alpha.kubernetes.io/tolerate-unready-endpoints': 'true' } })));
  const tolerant = computeSubsets(svc({ publishNotReadyAddresses: true, ports: [{ port: 80 }] }), [pod('c', '10.0.1.3', { ready: false })]);
  t.same(tolerant[0]!.addresses!.map((a) => a.ip), ['10.0.1.3']);
});

t.test('repackSubsets groups addresses offering the same ports', async (t) => {
  const a = { ip: '10.0.0.1' };
  const b = { ip: '10.0.0.2' };
  const p1 = { name: 'a', port: 1, protocol: 'TCP' };
  const p2 = { name: 'b', port: 2, protocol: 'TCP' };
  const out = repackSubsets([
    { addresses: [a], ports: [p1] }, { addresses: [b], ports: [p1] }, { addresses: [a], ports: [p2] }, { addresses: [b], ports: [p2] },
  ]);
  t.same(out, [{ addresses: [a, b], ports: [p1, p2] }]);
  const mixed = repackSubsets([{ notReadyAddresses: [a], ports: [p1] }, { addresses: [a], ports: [p1] }]);
  t.same(mixed, [{ addresses: [a], ports: [p1] }], 'ready wins over not ready');
});

t.test('trigger times: creation first, then the earliest change', async (t) => {
  const tracker = new TriggerTimeTracker();
  const s = svc({}, { creationTimestamp: '2026-01-01T00:00:00Z' });
  const p = (name: string, at: string) => ({ metadata: { name }, status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] } });
  t.equal(tracker.compute(s, [p('a', '2026-01-01T00:00:05Z')]), Date.parse('2026-01-01T00:00:00Z'), 'new service: its creation');
  t.equal(tracker.compute(s, [p('a', '2026-01-01T00:00:05Z')]), 0, 'nothing changed');
  t.equal(tracker.compute(s, [p('a', '2026-01-01T00:00:09Z'), p('b', '2026-01-01T00:00:07Z')]), Date.parse('2026-01-01T00:00:07Z'));
  t.equal(formatTriggerTime(Date.parse('2026-01-01T00:00:07.120Z')), '2026-01-01T00:00:07.12Z');
  t.equal(formatTriggerTime(Date.parse('2026-01-01T00:00:07Z')), '2026-01-01T00:00:07Z');
});

function existingSlice(name: string, ips: string[], ports = [{ name: '', port: 80, protocol: 'TCP' }]): EndpointSlice {
  return asSlice({
    metadata: { name, namespace: 'ns', labels: { 'kubernetes.io/service-name': 's', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 's', uid: 'svc-uid', controller: true }] },
    addressType: 'IPv4',
    ports,
    endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'ns', name: `p${ip}`, uid: `uid-p${ip}`, resourceVersion: '1' } })),
  });
}

t.test('planSlices: limits, filling existing slices before creating, placeholders', async (t) => {
  const s = svc({ ports: [{ port: 80 }] });
  const pods = (ips: string[]) => ips.map((ip) => pod(`p${ip}`, ip));
  const fresh = planSlices({ service: s, pods: pods(['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4', '1.1.1.5']), existing: [], nodeOf: () => undefined, maxEndpointsPerSlice: 2 });
  t.same(fresh.create.map((x) => x.endpoints.length), [2, 2, 1], 'new slices of at most 2');
  t.equal(fresh.create[0]!.metadata?.generateName, 's-');

  // one slice has room: the new endpoint goes there, no create
  const existing = [existingSlice('s-full', ['1.1.1.1', '1.1.1.2']), existingSlice('s-room', ['1.1.1.3'])];
  const grow = planSlices({ service: s, pods: pods(['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4']), existing, nodeOf: () => undefined, maxEndpointsPerSlice: 2 });
  t.same(grow.create, []);
  t.same(grow.update.map((x) => [x.metadata?.name, x.endpoints.length]), [['s-room', 2]]);
  t.same(grow.delete, []);

  // nothing changed: nothing to write
  const same = planSlices({ service: s, pods: pods(['1.1.1.1', '1.1.1.2', '1.1.1.3']), existing, nodeOf: () => undefined, maxEndpointsPerSlice: 2 });
  t.same([same.create.length, same.update.length, same.delete.length], [0, 0, 0]);

  // all pods gone: the slices go, one placeholder is created (finalize turns it into an update)
  const empty = planSlices({ service: s, pods: [], existing, nodeOf: () => undefined, maxEndpointsPerSlice: 2 });
  t.equal(empty.delete.length, 2);
  t.same(empty.create.map((x) => [x.endpoints.length, x.ports.length]), [[0, 0]]);

  // a placeholder already there is kept
  const kept = planSlices({ service: s, pods: [], existing: [existingSlice('s-empty', [], [])], nodeOf: () => undefined, maxEndpointsPerSlice: 2 });
  t.same([kept.create.length, kept.update.length, kept.delete.length], [0, 0, 0]);

  t.equal(closestFit([{ endpoints: [1] }, { endpoints: [1, 2, 3] }], 1, 5)?.endpoints.length, 3, 'the closest fit');
  t.same(addressTypesFor(svc({ clusterIP: 'None' })), ['IPv4', 'IPv6'], 'headless without families: both');
  t.same(addressTypesFor(svc({ clusterIP: 'fd00::1' })), ['IPv6']);
});

t.test('planMirror: one slice per subset and address type, capped', async (t) => {
  const ep: KubeObject = {
    apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ext', namespace: 'ns', uid: 'ep-uid', annotations: { a: 'b', 'endpoints.kubernetes.io/last-change-trigger-time': 'x' } },
    subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }, { ip: 'not-an-ip' }], notReadyAddresses: [{ ip: '10.0.0.2' }, { ip: '10.0.0.3' }], ports: [{ port: 443 }] }],
  };
  const plan = planMirror(ep, [], 3);
  t.equal(plan.invalid, 1);
  t.equal(plan.skipped, 2, 'the invalid one and one beyond the cap');
  t.same(plan.create.map((s) => [s.addressType, s.endpoints.map((e) => [e.addresses[0], e.conditions.ready])]).sort(), [
    ['IPv4', [['10.0.0.1', true], ['10.0.0.2', false]]],
    ['IPv6', [['fd00::1', true]]],
  ]);
  t.same(plan.create[0]!.metadata?.annotations, { a: 'b' }, 'annotations mirrored without the trigger time');
  t.equal(addressTypeOf('300.1.1.1'), undefined);
});
