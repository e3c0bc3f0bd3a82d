import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from '../../../src/api/kinds/events/event-conversion';
import { kind } from './helpers';

const coreEvent = (): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web.17a', namespace: 'default' },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', apiVersion: 'v1', fieldPath: 'spec.containers{app}' },
  reason: 'Pulled',
  message: 'Pulled image',
  source: { component: 'kubelet', host: 'n1' },
  firstTimestamp: '2024-01-01T00:00:00Z',
  lastTimestamp: '2024-01-01T00:01:00Z',
  count: 3,
  type: 'Normal',
  eventTime: null,
  reportingComponent: 'kubelet',
  reportingInstance: 'n1',
});

t.test('core <-> events.k8s.io conversion round-trips', async (t) => {
  const ev = coreEventToEventsV1(coreEvent());
  t.same(ev, {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'web.17a', namespace: 'default' },
    eventTime: null,
    reportingInstance: 'n1',
    reason: 'Pulled',
    type: 'Normal',
    regarding: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', apiVersion: 'v1', fieldPath: 'spec.containers{app}' },
    note: 'Pulled image',
    reportingController: 'kubelet',
    deprecatedSource: { component: 'kubelet', host: 'n1' },
    deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
    deprecatedLastTimestamp: '2024-01-01T00:01:00Z',
    deprecatedCount: 3,
  });
  t.same(eventsV1ToCoreEvent(ev), coreEvent());
  const def = kind('events.k8s.io', 'v1', 'Event');
  t.same(def.storage, { group: '', resource: 'events' });
  t.same(def.fromStorage!(def.toStorage!(ev)), ev);
});

t.test('core events: namespace must agree; field labels; table', async (t) => {
  const def = kind('', 'v1', 'Event');
  t.same(def.strategy.validate(coreEvent()), []);
  const wrong = coreEvent();
  (wrong.involvedObject as any).namespace = 'other';
  t.same(def.strategy.validate(wrong), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "other": does not match event.namespace', field: 'involvedObject.namespace' },
  ]);
  t.same(def.selectableFields!(coreEvent()), {
    'involvedObject.kind': 'Pod',
    'involvedObject.namespace': 'default',
    'involvedObject.name': 'web',
    'involvedObject.uid': 'u1',
    'involvedObject.apiVersion': 'v1',
    'involvedObject.resourceVersion': '',
    'involvedObject.fieldPath': 'spec.containers{app}',
    reason: 'Pulled',
    reportingComponent: 'kubelet',
    source: 'kubelet',
    type: 'Normal',
  });
  t.same(def.table!.columns.map((c) => [c.name, c.priority]), [
    ['Last Seen', 0], ['Type', 0], ['Reason', 0], ['Object', 0], ['Subobject', 1], ['Source', 1], ['Message', 0], ['First Seen', 1], ['Count', 1], ['Name', 1],
  ]);
  t.same(def.table!.cells(coreEvent(), new Date('2024-01-01T00:02:00Z')), ['60s', 'Normal', 'Pulled', 'pod/web', 'spec.containers{app}', 'kubelet, n1', 'Pulled image', '2m', 3, 'web.17a']);
});

t.test('events.k8s.io: new-style validation, immutability, field labels', async (t) => {
  const def = kind('events.k8s.io', 'v1', 'Event');
  const ev: KubeObject = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e', namespace: 'default' },
    eventTime: '2024-01-01T00:00:00.000000Z',
    reportingController: 'example.com/ctl',
    reportingInstance: 'ctl-1',
    action: 'Scale',
    reason: 'Scaled',
    regarding: { kind: 'Deployment', name: 'web', namespace: 'default' },
    note: 'scaled up',
    type: 'Normal',
  };
  t.same(def.strategy.validate(ev), []);
  const bad = { ...ev, type: 'Odd', deprecatedCount: 2, reportingController: '' } as KubeObject;
  t.same(def.strategy.validate(bad).map((c) => c.field), ['deprecatedCount', 'reportingController', 'reportingController', 'reportingController', 'type']);
  t.match(def.strategy.validate({ ...ev, note: 'changed' }, ev), [{ field: 'note', message: /field is immutable/ }]);
  t.same(def.strategy.validate({ ...ev, series: { count: 2, lastObservedTime: '2024-01-01T00:00:01.000000Z' } }, ev), []);
  const labels = def.selectableFields!(ev);
  t.equal(labels['regarding.kind'], 'Deployment');
  t.equal(labels.reportingController, 'example.com/ctl');
  t.equal(labels['involvedObject.kind'], undefined);
  // the stored (core) form gives the same labels
  t.same(def.selectableFields!(def.toStorage!(ev)), labels);
});
