import t from 'tap';
import { legacyLine, microTimestamp, splitBatches, truncateEvent, withoutManagedFields } from '../../src/audit/event';
import type { AuditEvent } from '../../src/audit/types';

function event(extra: Partial<AuditEvent> = {}): AuditEvent {
  return {
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: 'a1b2', stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/default/pods?limit=500', verb: 'list',
    user: { username: 'alice', groups: ['devs', 'system:authenticated'] }, sourceIPs: ['10.0.0.1', '127.0.0.1'],
    userAgent: 'kubectl/v1.32.0', objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: '2026-01-02T03:04:05.120000Z', stageTimestamp: '2026-01-02T03:04:05.130000Z',
    ...extra,
  };
}

t.test('timestamps carry exactly six fractional digits', async (t) => {
  t.match(microTimestamp(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  t.equal(microTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5, 6) + 0.789), '2026-01-02T03:04:05.006789Z');
});

t.test("kube's legacy line", async (t) => {
  t.equal(
    legacyLine(event()),
    '2026-01-02T03:04:05.12Z AUDIT: id="a1b2" stage="ResponseComplete" ip="10.0.0.1" method="list" user="alice" ' +
      'groups="\\"devs\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.32.0" ' +
      'namespace="default" uri="/api/v1/namespaces/default/pods?limit=500" response="200"',
  );
  const bare = legacyLine(event({ user: {}, sourceIPs: undefined, objectRef: undefined, responseStatus: undefined, stage: 'RequestReceived', impersonatedUser: { username: 'bob', groups: ['x'] } }));
  t.match(bare, /ip="<unknown>" method="list" user="<none>" groups="<none>" as="bob" asgroups="\\"x\\"" /);
  t.match(bare, /namespace="<none>" .* response="<deferred>"$/);
});

t.test('truncation drops bodies, then the event', async (t) => {
  const big = event({ level: 'RequestResponse', requestObject: { data: 'x'.repeat(2000) }, responseObject: { data: 'y'.repeat(2000) } });
  t.equal(truncateEvent(big, 100_000), big, 'small enough: untouched');
  const cut = truncateEvent(big, 1500)!;
  t.equal(cut.requestObject, undefined);
  t.equal(cut.responseObject, undefined);
  t.equal(cut.annotations?.['audit.k8s.io/truncated'], 'true');
  t.equal(truncateEvent(big, 100), undefined);
});

t.test('batches split by bytes', async (t) => {
  const evs = [event(), event(), event()];
  const one = Buffer.byteLength(JSON.stringify(evs[0]));
  t.same(splitBatches(evs, one * 2).map((b) => b.length), [2, 1]);
  t.same(splitBatches(evs, 10).map((b) => b.length), [1, 1, 1], 'an event alone is never held back');
});

t.test('omitManagedFields strips objects and list items', async (t) => {
  const obj = { kind: 'Pod', metadata: { name: 'a', managedFields: [{ manager: 'kubectl' }] } };
  t.same(withoutManagedFields(obj), { kind: 'Pod', metadata: { name: 'a' } });
  t.same(withoutManagedFields({ kind: 'PodList', items: [obj] }), { kind: 'PodList', items: [{ kind: 'Pod', metadata: { name: 'a' } }] });
  t.ok(obj.metadata.managedFields, 'the original is untouched');
});
