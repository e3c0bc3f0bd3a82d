/** core/v1 ConfigMap, Secret, Event, LimitRange, ResourceQuota and Binding. */
import type { Definitions } from '../types';
import {
  addKind, atomic, bool, bytes, core, int32, map, microTime, obj, objectMeta, oneOf, ref, resourceList, str, time,
} from '../dsl';

const QUOTA_SCOPES = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating'];

export const coreConfigDefinitions: Definitions = {
  [core('EventSource')]: obj('Who reported an event.', {
    component: str('Reporting component.'),
    host: str('Node the event came from.'),
  }),
  [core('EventSeries')]: obj('A run of repeated events.', {
    count: int32('Occurrences so far.'),
    lastObservedTime: microTime('Time of the last occurrence.'),
  }),
  [core('LimitRangeSpec')]: obj(
    'Limits enforced in a namespace.',
    { limits: atomic(ref(core('LimitRangeItem')), 'The limits.') },
    { required: ['limits'] },
  ),
  [core('LimitRangeItem')]: obj(
    'Limits for one kind of resource consumer.',
    {
      default: resourceList('Default limits for containers that set none.'),
      defaultRequest: resourceList('Default requests for containers that set none.'),
      max: resourceList('Largest allowed amounts.'),
      maxLimitRequestRatio: resourceList('Largest allowed limit / request ratios.'),
      min: resourceList('Smallest allowed amounts.'),
      type: str('Pod, Container or PersistentVolumeClaim.'),
    },
    { required: ['type'] },
  ),
  [core('ResourceQuotaSpec')]: obj('Desired quota.', {
    hard: resourceList('Hard limits per resource name.'),
    scopeSelector: ref(core('ScopeSelector'), 'Narrows the objects counted, by scope expressions.'),
    scopes: atomic(oneOf('A quota scope.', QUOTA_SCOPES), 'Only objects in all these scopes are counted.'),
  }),
  [core('ScopeSelector')]: obj(
    'Scope expressions, ANDed.',
    { matchExpressions: atomic(ref(core('ScopedResourceSelectorRequirement')), 'The expressions.') },
    { atomic: true },
  ),
  [core('ScopedResourceSelectorRequirement')]: obj(
    'One scope expression.',
    {
      operator: oneOf('How scopeName and values relate.', ['DoesNotExist', 'Exists', 'In', 'NotIn']),
      scopeName: oneOf('The scope.', QUOTA_SCOPES),
      values: atomic(str(), 'Values for In and NotIn.'),
    },
    { required: ['scopeName', 'operator'] },
  ),
  [core('ResourceQuotaStatus')]: obj('Observed quota usage.', {
    hard: resourceList('Enforced hard limits.'),
    used: resourceList('Current usage.'),
  }),
};

const v1 = (kind: string) => ({ group: '', version: 'v1', kind });

addKind(coreConfigDefinitions, core(''), v1('ConfigMap'), 'Non-secret configuration data as key/value pairs.', {
  binaryData: map('Binary values, base64 in JSON; keys must not clash with data.', bytes()),
  data: map('UTF-8 values.'),
  immutable: bool('When true, data cannot change any more.'),
});
addKind(coreConfigDefinitions, core(''), v1('Secret'), 'Sensitive data as key/value pairs.', {
  data: map('Values, base64 in JSON.', bytes()),
  immutable: bool('When true, data cannot change any more.'),
  stringData: map('Write-only plain-text values merged into data on write.'),
  type: str('Used to check the content, e.g. Opaque or kubernetes.io/tls.'),
});
addKind(
  coreConfigDefinitions,
  core(''),
  v1('Event'),
  'A report of something that happened to an object.',
  {
    action: str('What was done, or failed.'),
    count: int32('How many times it happened.'),
    eventTime: microTime('When it first happened, precisely.'),
    firstTimestamp: time('When it was first recorded.'),
    involvedObject: ref(core('ObjectReference'), 'The object it is about.'),
    lastTimestamp: time('When it was last recorded.'),
    message: str('Human-readable description.'),
    metadata: objectMeta(),
    reason: str('Short CamelCase reason.'),
    related: ref(core('ObjectReference'), 'A second object involved, if any.'),
    reportingComponent: str('Controller that emitted it.'),
    reportingInstance: str('Instance of that controller.'),
    series: ref(core('EventSeries'), 'Data about the series it belongs to.'),
    source: ref(core('EventSource'), 'Component reporting it.'),
    type: str('Normal or Warning.'),
  },
  ['metadata', 'involvedObject'],
);
addKind(coreConfigDefinitions, core(''), v1('LimitRange'), 'Resource limits per object in a namespace.', {
  spec: ref(core('LimitRangeSpec'), 'The limits.'),
});
addKind(coreConfigDefinitions, core(''), v1('ResourceQuota'), 'Total resource limits of a namespace.', {
  spec: ref(core('ResourceQuotaSpec'), 'Desired quota.'),
  status: ref(core('ResourceQuotaStatus'), 'Observed usage. Read-only.'),
});
coreConfigDefinitions[core('Binding')] = obj(
  'Binds an object to another, e.g. a pod to a node.',
  {
    apiVersion: str('Versioned schema of this object.'),
    kind: str('Kind of this object.'),
    metadata: objectMeta(),
    target: ref(core('ObjectReference'), 'The object bound to.'),
  },
  { required: ['target'], gvk: v1('Binding') },
);
