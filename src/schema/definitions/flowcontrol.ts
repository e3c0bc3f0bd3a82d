/**
 * flowcontrol.apiserver.k8s.io FlowSchema and PriorityLevelConfiguration in v1, v1beta3, v1beta2,
 * v1beta1 and v1alpha1. FlowSchema has one shape in every version; priority levels name their
 * shares nominalConcurrencyShares (v1, v1beta3) or assuredConcurrencyShares (earlier), and
 * v1alpha1 (kube 1.20's shape) has neither borrowing nor the exempt settings.
 */
import type { Definitions, SchemaNode } from '../types';
import { addKind, atomic, bool, int32, listMap, mergeList, obj, ref, set, str, time } from '../dsl';

const GROUP = 'flowcontrol.apiserver.k8s.io';

interface VersionShape {
  version: string;
  /** the name of the shares field of limited priority levels */
  shares: 'nominalConcurrencyShares' | 'assuredConcurrencyShares';
  /** lendablePercent, borrowingLimitPercent and the exempt settings (kube 1.26+ shapes) */
  borrowing: boolean;
  /** conditions carry the strategic-merge markers (v1, v1beta3) */
  mergeConditions: boolean;
}

const VERSIONS: VersionShape[] = [
  { version: 'v1', shares: 'nominalConcurrencyShares', borrowing: true, mergeConditions: true },
  { version: 'v1beta3', shares: 'nominalConcurrencyShares', borrowing: true, mergeConditions: true },
  { version: 'v1beta2', shares: 'assuredConcurrencyShares', borrowing: true, mergeConditions: false },
  { version: 'v1beta1', shares: 'assuredConcurrencyShares', borrowing: true, mergeConditions: false },
  { version: 'v1alpha1', shares: 'assuredConcurrencyShares', borrowing: false, mergeConditions: false },
];

function condition(desc: string): SchemaNode {
  return obj(desc, {
    lastTransitionTime: time('When the condition last changed status.'),
    message: str('Human-readable details of the last transition.'),
    reason: str('Machine-readable reason for the last transition.'),
    status: str('True, False or Unknown.'),
    type: str('Type of the condition.'),
  });
}

function conditions(item: string, mergeMarkers: boolean): SchemaNode {
  const desc = 'Current state of the object.';
  return mergeMarkers ? mergeList(ref(item), 'type', desc) : listMap(ref(item), ['type'], desc);
}

function shape(v: VersionShape): Definitions {
  const p = `io.k8s.api.flowcontrol.${v.version}.`;
  const r = (name: string) => p + name;
  const limited: Record<string, SchemaNode> = {
    [v.shares]: int32('Share of the server concurrency limit this level is entitled to. Defaults to 30.'),
    limitResponse: ref(r('LimitResponse'), 'What happens to requests over the limit.'),
  };
  if (v.borrowing) {
    limited.borrowingLimitPercent = int32('Percent of the nominal limit this level may borrow from others; unset means no limit.');
    limited.lendablePercent = int32('Percent of the nominal limit others may borrow, 0-100. Defaults to 0.');
  }
  const plSpec: Record<string, SchemaNode> = {
    limited: ref(r('LimitedPriorityLevelConfiguration'), 'Settings of a Limited level.'),
    type: str('Exempt (not limited) or Limited.'),
  };
  if (v.borrowing) plSpec.exempt = ref(r('ExemptPriorityLevelConfiguration'), 'Settings of the Exempt level.');
  const defs: Definitions = {
    [r('FlowSchemaSpec')]: obj(
      'Which requests a FlowSchema matches and where it sends them.',
      {
        distinguisherMethod: ref(r('FlowDistinguisherMethod'), 'How matching requests are split into flows; none means one flow.'),
        matchingPrecedence: int32('Lower values match first, 1-10000. Defaults to 1000.'),
        priorityLevelConfiguration: ref(r('PriorityLevelConfigurationReference'), 'The priority level of matching requests.'),
        rules: atomic(ref(r('PolicyRulesWithSubjects')), 'The requests matched; a request matches if any rule does.'),
      },
      { required: ['priorityLevelConfiguration'] },
    ),
    [r('FlowDistinguisherMethod')]: obj('How requests are split into flows.', { type: str('ByUser or ByNamespace.') }, { required: ['type'] }),
    [r('PriorityLevelConfigurationReference')]: obj('Names a priority level.', { name: str('Name of the priority level.') }, { required: ['name'] }),
    [r('PolicyRulesWithSubjects')]: obj(
      'Requests by some subjects on some resources or paths.',
      {
        nonResourceRules: atomic(ref(r('NonResourcePolicyRule')), 'Non-resource paths matched.'),
        resourceRules: atomic(ref(r('ResourcePolicyRule')), 'Resources matched.'),
        subjects: atomic(ref(r('Subject')), 'Who makes the requests; at least one.'),
      },
      { required: ['subjects'] },
    ),
    [r('Subject')]: obj(
      'A user, group or service account; the field named by kind is set.',
      {
        group: ref(r('GroupSubject'), 'A group.'),
        kind: str('User, Group or ServiceAccount.'),
        serviceAccount: ref(r('ServiceAccountSubject'), 'A service account.'),
        user: ref(r('UserSubject'), 'A user.'),
      },
      { required: ['kind'] },
    ),
    [r('UserSubject')]: obj('A user.', { name: str('User name; * means all.') }, { required: ['name'] }),
    [r('GroupSubject')]: obj('A group.', { name: str('Group name; * means all.') }, { required: ['name'] }),
    [r('ServiceAccountSubject')]: obj(
      'A service account.',
      { name: str('Service account name; * means all.'), namespace: str('Namespace of the service account.') },
      { required: ['namespace', 'name'] },
    ),
    [r('ResourcePolicyRule')]: obj(
      'Matches resource requests.',
      {
        apiGroups: set(str(), 'API groups; * means all.'),
        clusterScope: bool('Whether requests without a namespace match.'),
        namespaces: set(str(), 'Namespaces of namespaced requests; * means all.'),
        resources: set(str(), 'Resources (and resource/subresource); * means all.'),
        verbs: set(str(), 'Verbs; * means all.'),
      },
      { required: ['verbs', 'apiGroups', 'resources'] },
    ),
    [r('NonResourcePolicyRule')]: obj(
      'Matches non-resource requests.',
      {
        nonResourceURLs: set(str(), 'Paths, with a trailing /* for prefixes; * means all.'),
        verbs: set(str(), 'Verbs; * means all.'),
      },
      { required: ['verbs', 'nonResourceURLs'] },
    ),
    [r('FlowSchemaStatus')]: obj('Observed state of a FlowSchema.', { conditions: conditions(r('FlowSchemaCondition'), v.mergeConditions) }),
    [r('FlowSchemaCondition')]: condition('A condition of a FlowSchema, e.g. Dangling.'),
    [r('PriorityLevelConfigurationSpec')]: obj('How requests of a level are limited.', plSpec, { required: ['type'] }),
    [r('LimitedPriorityLevelConfiguration')]: obj('Settings of a Limited priority level.', limited),
    [r('LimitResponse')]: obj(
      'What happens to requests over the limit.',
      {
        queuing: ref(r('QueuingConfiguration'), 'Queue settings, when type is Queue.'),
        type: str('Queue or Reject.'),
      },
      { required: ['type'] },
    ),
    [r('QueuingConfiguration')]: obj('How requests over the limit queue.', {
      handSize: int32('Queues each flow is dealt (shuffle sharding). Defaults to 8.'),
      queueLengthLimit: int32('Requests one queue may hold. Defaults to 50.'),
      queues: int32('Number of queues. Defaults to 64.'),
    }),
    [r('PriorityLevelConfigurationStatus')]: obj('Observed state of a priority level.', {
      conditions: conditions(r('PriorityLevelConfigurationCondition'), v.mergeConditions),
    }),
    [r('PriorityLevelConfigurationCondition')]: condition('A condition of a priority level.'),
  };
  if (v.borrowing) {
    defs[r('ExemptPriorityLevelConfiguration')] = obj('Settings of the Exempt priority level.', {
      lendablePercent: int32('Percent of the nominal limit others may borrow, 0-100.'),
      nominalConcurrencyShares: int32('Share of the server concurrency limit counted for this level. Defaults to 0.'),
    });
  }
  addKind(defs, p, { group: GROUP, version: v.version, kind: 'FlowSchema' }, 'Sorts requests into priority levels and flows.', {
    spec: ref(r('FlowSchemaSpec'), 'Which requests it matches and where they go.'),
    status: ref(r('FlowSchemaStatus'), 'Observed state. Read-only.'),
  });
  addKind(defs, p, { group: GROUP, version: v.version, kind: 'PriorityLevelConfiguration' }, 'A priority level of API Priority and Fairness.', {
    spec: ref(r('PriorityLevelConfigurationSpec'), 'How its requests are limited.'),
    status: ref(r('PriorityLevelConfigurationStatus'), 'Observed state. Read-only.'),
  });
  return defs;
}

export const flowcontrolDefinitions: Definitions = Object.assign({}, ...VERSIONS.map(shape)) as Definitions;
