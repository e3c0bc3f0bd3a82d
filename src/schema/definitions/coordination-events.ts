/** coordination.k8s.io/v1 Lease and events.k8s.io/v1 Event. */
import type { Definitions } from '../types';
import { addKind, core, int32, microTime, obj, objectMeta, ref, str, time } from '../dsl';

const LEASE = 'io.k8s.api.coordination.v1.';
const EVENTS = 'io.k8s.api.events.v1.';

export const coordinationEventsDefinitions: Definitions = {
  [`${LEASE}LeaseSpec`]: obj('Desired state of a Lease.', {
    acquireTime: microTime('When the current holder acquired the lease.'),
    holderIdentity: str('Identity of the current holder.'),
    leaseDurationSeconds: int32('Seconds candidates wait after the last renewal before taking over.'),
    leaseTransitions: int32('How many times the holder changed.'),
    preferredHolder: str('Holder that should take over, in coordinated leader election.'),
    renewTime: microTime('When the holder last renewed the lease.'),
    strategy: str('How the leader is picked in coordinated leader election, e.g. OldestEmulationVersion.'),
  }),
  [`${EVENTS}EventSeries`]: obj(
    'A run of repeated events.',
    {
      count: int32('Occurrences so far.'),
      lastObservedTime: microTime('Time of the last occurrence.'),
    },
    { required: ['count', 'lastObservedTime'] },
  ),
};

addKind(coordinationEventsDefinitions, LEASE, { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' }, 'A lease, used for leader election and heartbeats.', {
  spec: ref(`${LEASE}LeaseSpec`, 'Desired state.'),
});

addKind(
  coordinationEventsDefinitions,
  EVENTS,
  { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
  'A report of something that happened to an object.',
  {
    action: str('What was done, or failed.'),
    deprecatedCount: int32('Deprecated count, for core/v1 compatibility.'),
    deprecatedFirstTimestamp: time('Deprecated first time, for core/v1 compatibility.'),
    deprecatedLastTimestamp: time('Deprecated last time, for core/v1 compatibility.'),
    deprecatedSource: ref(core('EventSource'), 'Deprecated source, for core/v1 compatibility.'),
    eventTime: microTime('When the event first happened.'),
    metadata: objectMeta(),
    note: str('Human-readable description, at most 1kB.'),
    reason: str('Why the action was taken.'),
    regarding: ref(core('ObjectReference'), 'The object the event is about.'),
    related: ref(core('ObjectReference'), 'A second object involved, if any.'),
    reportingController: str('Controller that emitted it, e.g. kubernetes.io/kubelet.'),
    reportingInstance: str('Instance of that controller.'),
    series: ref(`${EVENTS}EventSeries`, 'Data about the series it belongs to.'),
    type: str('Normal or Warning.'),
  },
  ['eventTime'],
);
