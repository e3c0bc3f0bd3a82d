import t from 'tap';
import { create, fields, kind } from './helpers';
import type { KubeObject } from '../../../src/api/kind';
import { jsonEqual } from '../../../src/api/json-value';
import { flowcontrolBootstrapObjects } from '../../../src/api/kinds/flowcontrol';
import { PRESERVED_FIELDS_ANNOTATION } from '../../../src/api/kinds/preserved-fields';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const VERSIONS = ['v1', 'v1beta3', 'v1beta2', 'v1beta1', 'v1alpha1'];
const pl = (v: string) => kind(GROUP, v, 'PriorityLevelConfiguration');
const fs = (v: string) => kind(GROUP, v, 'FlowSchema');

function storedLevel(shares: number): KubeObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'batch', annotations: { team: 'data' } },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: shares,
        limitResponse: { type: 'Queue', queuing: { queues: 32, handSize: 4, queueLengthLimit: 20 } },
        lendablePercent: 25,
        borrowingLimitPercent: 50,
      },
    },
    status: {},
  };
}

t.test('priority levels: nominal <-> assured shares, without loss through every version', async (t) => {
  const s = storedLevel(15);
  for (const v of VERSIONS) {
    const read = pl(v).fromStorage!(s);
    const limited = (read.spec as { limited: Record<string, unknown> }).limited;
    if (v === 'v1' || v === 'v1beta3') t.equal(limited.nominalConcurrencyShares, 15, v);
    else {
      t.equal(limited.assuredConcurrencyShares, 15, v);
      t.notOk('nominalConcurrencyShares' in limited);
    }
    t.ok(jsonEqual(pl(v).toStorage!(read), s), `${v} writes back the stored object`);
  }
  const alpha = pl('v1alpha1').fromStorage!(s);
  t.same((alpha.spec as { limited: unknown }).limited, { assuredConcurrencyShares: 15, limitResponse: { type: 'Queue', queuing: { queues: 32, handSize: 4, queueLengthLimit: 20 } } });
  t.same(JSON.parse(alpha.metadata!.annotations![PRESERVED_FIELDS_ANNOTATION]), { 'spec.limited.lendablePercent': 25, 'spec.limited.borrowingLimitPercent': 50 });
});

t.test('v1beta3 keeps an explicit zero through kube\'s preserve-zero annotation', async (t) => {
  const read = pl('v1beta3').fromStorage!(storedLevel(0));
  t.equal(read.metadata!.annotations!['flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares'], '');
  pl('v1beta3').strategy.defaults(read);
  t.equal((read.spec as { limited: Record<string, unknown> }).limited.nominalConcurrencyShares, 0, 'not defaulted to 30');
  const back = pl('v1beta3').toStorage!(read);
  t.ok(jsonEqual(back, storedLevel(0)), 'the annotation is not stored');
  const fresh: KubeObject = { apiVersion: `${GROUP}/v1beta3`, kind: 'PriorityLevelConfiguration', metadata: { name: 'x' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } } };
  pl('v1beta3').strategy.defaults(fresh);
  t.equal((fresh.spec as { limited: Record<string, unknown> }).limited.nominalConcurrencyShares, 30, 'without the annotation, 0 means the default');
});

t.test("kube's defaults per version", async (t) => {
  const level = (v: string, limited: Record<string, unknown>): KubeObject => ({ apiVersion: `${GROUP}/${v}`, kind: 'PriorityLevelConfiguration', metadata: { name: 'x' }, spec: { type: 'Limited', limited } });
  const v1 = level('v1', { limitResponse: { type: 'Queue', queuing: {} } });
  pl('v1').strategy.defaults(v1);
  t.same((v1.spec as { limited: unknown }).limited, { limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } }, nominalConcurrencyShares: 30, lendablePercent: 0 });
  const beta = level('v1beta2', { limitResponse: { type: 'Reject' } });
  pl('v1beta2').strategy.defaults(beta);
  t.same((beta.spec as { limited: unknown }).limited, { limitResponse: { type: 'Reject' }, assuredConcurrencyShares: 30, lendablePercent: 0 });
  const alpha = level('v1alpha1', { limitResponse: { type: 'Reject' } });
  pl('v1alpha1').strategy.defaults(alpha);
  t.same((alpha.spec as { limited: unknown }).limited, { limitResponse: { type: 'Reject' }, assuredConcurrencyShares: 30 }, 'v1alpha1 has no lendablePercent');
  const exempt: KubeObject = { apiVersion: `${GROUP}/v1`, kind: 'PriorityLevelConfiguration', metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: {} } };
  pl('v1').strategy.defaults(exempt);
  t.same(exempt.spec, { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
  const schema: KubeObject = { apiVersion: `${GROUP}/v1beta1`, kind: 'FlowSchema', metadata: { name: 'x' }, spec: { priorityLevelConfiguration: { name: 'p' } } };
  fs('v1beta1').strategy.defaults(schema);
  t.equal((schema.spec as Record<string, unknown>).matchingPrecedence, 1000);
});

const flowSchema = (name: string, spec: Record<string, unknown>, v = 'v1'): KubeObject => ({ apiVersion: `${GROUP}/${v}`, kind: 'FlowSchema', metadata: { name }, spec });
const subjects = [{ kind: 'Group', group: { name: 'system:authenticated' } }];

t.test('FlowSchema validation', async (t) => {
  const ok = flowSchema('mine', { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 500, rules: [{ subjects, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }] }] });
  t.same(create(fs('v1'), ok), []);
  const precedence = (n: number, name = 'mine') => create(fs('v1'), flowSchema(name, { priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: n })).map((c) => c.message);
  t.same(precedence(-1), ['Invalid value: -1: must be a positive value']);
  t.same(precedence(10001), ['Invalid value: 10001: must not be greater than 10000']);
  t.same(precedence(1), ["Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"]);
  const bad = create(fs('v1beta1'), flowSchema('mine', {
    priorityLevelConfiguration: { name: '' },
    matchingPrecedence: 100,
    distinguisherMethod: { type: 'ByHost' },
    rules: [
      { subjects: [] },
      {
        subjects: [
          { kind: 'Robot' },
          { kind: 'ServiceAccount', serviceAccount: { name: 'Bad_Name' }, user: { name: 'u' } },
          { kind: 'User', user: { name: '' } },
        ],
        resourceRules: [{ verbs: ['get', 'fly'], apiGroups: ['*', 'apps'], resources: [], namespaces: ['Bad'] }],
        nonResourceRules: [{ verbs: ['*', 'get'], nonResourceURLs: ['metrics', '/a/*/b'] }],
      },
    ],
  }, 'v1beta1'));
  t.same(bad.map((c) => `${c.field}: ${c.message}`), [
    'spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByHost"}: supported values: "ByNamespace", "ByUser"',
    'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
    'spec.rules[0].subjects: Required value: subjects must contain at least one value',
    'spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty',
    'spec.rules[1].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"',
    'spec.rules[1].subjects[1].serviceAccount.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    'spec.rules[1].subjects[1].serviceAccount.namespace: Required value: must specify namespace for service account',
    "spec.rules[1].subjects[1].user: Forbidden: user is forbidden when subject kind is not 'User'",
    'spec.rules[1].subjects[2].user.name: Required value',
    'spec.rules[1].resourceRules[0].verbs: Unsupported value: []string{"get", "fly"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
    'spec.rules[1].resourceRules[0].apiGroups: Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify other api groups',
    'spec.rules[1].resourceRules[0].resources: Required value: resource rules must supply at least one resource',
    'spec.rules[1].resourceRules[0].namespaces[0]: Invalid value: "Bad": each member of this list must be \'*\' or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
    'spec.rules[1].nonResourceRules[0].verbs: Invalid value: []string{"*", "get"}: if \'*\' is present, must not specify other verbs',
    'spec.rules[1].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "metrics": must start with slash',
    'spec.rules[1].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a/*/b": wildcard can only do suffix matching',
  ]);
  t.same(fields(fs('v1').strategy.validateStatus!({ status: { conditions: [{ type: 'Dangling' }, { type: 'Dangling' }, {}] } }, {})), [
    'status.conditions[1].type', 'status.conditions[2].type',
  ]);
});

t.test('PriorityLevelConfiguration validation, with the shares field of the request version', async (t) => {
  const level = (v: string, name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: `${GROUP}/${v}`, kind: 'PriorityLevelConfiguration', metadata: { name }, spec });
  const limited = (shares: Record<string, unknown>, response: Record<string, unknown>) => ({ type: 'Limited', limited: { ...shares, limitResponse: response } });
  t.same(create(pl('v1'), level('v1', 'zero', limited({ nominalConcurrencyShares: 0 }, { type: 'Reject' }))), [], 'kube 1.30+ accepts zero shares');
  t.same(create(pl('v1'), level('v1', 'neg', limited({ nominalConcurrencyShares: -1 }, { type: 'Reject' }))).map((c) => `${c.field}: ${c.message}`), [
    'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
  ]);
  t.same(fields(create(pl('v1beta2'), level('v1beta2', 'neg', limited({ assuredConcurrencyShares: -1 }, { type: 'Reject' })))), ['spec.limited.assuredConcurrencyShares']);
  const queuing = (q: Record<string, unknown>) => create(pl('v1'), level('v1', 'q', limited({}, { type: 'Queue', queuing: q }))).map((c) => `${c.field}: ${c.message}`);
  t.same(queuing({ queues: 8, handSize: 9, queueLengthLimit: -1 }), [
    'spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive',
    'spec.limited.limitResponse.queuing.handSize: Invalid value: 9: should not be greater than queues (8)',
  ]);
  t.same(queuing({ queues: 10000001, handSize: 1 }), ['spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: must not be greater than 10000000']);
  t.same(queuing({ queues: 10000000, handSize: 10 }), [
    'spec.limited.limitResponse.queuing.handSize: Invalid value: 10: required entropy bits of deckSize 10000000 and handSize 10 should not be greater than 60',
  ]);
  t.same(create(pl('v1'), level('v1', 'r', limited({ lendablePercent: 101, borrowingLimitPercent: -1 }, { type: 'Reject', queuing: {} }))).map((c) => c.field), [
    'spec.limited.limitResponse.queuing', 'spec.limited.lendablePercent', 'spec.limited.borrowingLimitPercent',
  ]);
  t.same(create(pl('v1'), level('v1', 'r', { type: 'Exempt' })).map((c) => c.message), ["Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'"]);
  t.same(create(pl('v1'), level('v1', 'r', { type: 'Limited', exempt: {} })).map((c) => c.field), ['spec.exempt', 'spec.limited']);
  t.same(create(pl('v1'), level('v1', 'r', { type: 'Sometimes' })).map((c) => c.message), ['Unsupported value: "Sometimes": supported values: "Exempt", "Limited"']);
});

t.test("the mandatory objects' spec is fixed (the exempt level's own settings excepted)", async (t) => {
  const mandatory = flowcontrolBootstrapObjects().map((b) => b.object).filter((o) => ['exempt', 'catch-all'].includes(String(o.metadata?.name)));
  t.equal(mandatory.length, 4);
  for (const o of mandatory) {
    const k = o.kind === 'FlowSchema' ? fs('v1') : pl('v1');
    t.same(create(k, structuredClone(o)), [], `${o.kind} ${o.metadata?.name} as kube creates it`);
  }
  const catchAll = structuredClone(mandatory.find((o) => o.kind === 'PriorityLevelConfiguration' && o.metadata?.name === 'catch-all')!);
  (catchAll.spec as { limited: Record<string, unknown> }).limited.nominalConcurrencyShares = 6;
  t.same(create(pl('v1'), catchAll).map((c) => `${c.field}: ${c.message.replace(/value: .*: spec/, 'value: …: spec')}`), ["spec: Invalid value: …: spec of 'catch-all' must equal the fixed value"]);
  // the same spec written in v1beta1 (assured shares, defaults of that version) is still the fixed one
  const beta = pl('v1beta1').fromStorage!(mandatory.find((o) => o.kind === 'PriorityLevelConfiguration' && o.metadata?.name === 'catch-all')!);
  t.same(create(pl('v1beta1'), beta), []);
  const exempt = structuredClone(mandatory.find((o) => o.kind === 'PriorityLevelConfiguration' && o.metadata?.name === 'exempt')!);
  (exempt.spec as { exempt: Record<string, unknown> }).exempt = { nominalConcurrencyShares: 10, lendablePercent: 20 };
  t.same(create(pl('v1'), exempt), [], 'the exempt settings may change');
  const fsExempt = structuredClone(mandatory.find((o) => o.kind === 'FlowSchema' && o.metadata?.name === 'exempt')!);
  (fsExempt.spec as Record<string, unknown>).distinguisherMethod = { type: 'ByUser' };
  t.same(fields(create(fs('v1'), fsExempt)), ['spec']);
});

t.test('tables: kube 1.32 columns', async (t) => {
  const now = new Date('2024-05-01T11:00:00Z');
  t.same(fs('v1').table!.columns.map((c) => c.name), ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL']);
  t.same(pl('v1').table!.columns.map((c) => c.name), ['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age']);
  const objects = flowcontrolBootstrapObjects().map((b) => ({ ...structuredClone(b.object), metadata: { ...b.object.metadata, creationTimestamp: '2024-05-01T10:00:00Z' } }));
  const find = (k: string, name: string) => objects.find((o) => o.kind === k && o.metadata.name === name)!;
  t.same(fs('v1').table!.cells(find('FlowSchema', 'exempt'), now), ['exempt', 'exempt', 1, '<none>', '60m', '?']);
  t.same(fs('v1').table!.cells(find('FlowSchema', 'kube-scheduler'), now), ['kube-scheduler', 'workload-high', 800, 'ByNamespace', '60m', '?']);
  const dangling = { ...find('FlowSchema', 'probes'), status: { conditions: [{ type: 'Dangling', status: 'False' }] } };
  t.equal(fs('v1').table!.cells(dangling, now)[5], 'False');
  t.same(pl('v1').table!.cells(find('PriorityLevelConfiguration', 'exempt'), now), ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>', '60m']);
  t.same(pl('v1').table!.cells(find('PriorityLevelConfiguration', 'catch-all'), now), ['catch-all', 'Limited', 5, '<none>', '<none>', '<none>', '60m']);
  t.same(pl('v1').table!.cells(find('PriorityLevelConfiguration', 'workload-low'), now), ['workload-low', 'Limited', 100, 128, 6, 50, '60m']);
  const beta = pl('v1beta2').fromStorage!(find('PriorityLevelConfiguration', 'system'));
  t.same(pl('v1beta2').table!.cells(beta, now).slice(2, 6), [30, 64, 6, 50], 'a v1beta2 object shows its assured shares');
});

t.test("kube 1.32's bootstrap objects, all valid", async (t) => {
  const objects = flowcontrolBootstrapObjects().map((b) => b.object);
  t.same(objects.filter((o) => o.kind === 'PriorityLevelConfiguration').map((o) => o.metadata?.name), [
    'system', 'node-high', 'leader-election', 'workload-high', 'workload-low', 'global-default', 'catch-all', 'exempt',
  ]);
  t.same(objects.filter((o) => o.kind === 'FlowSchema').map((o) => o.metadata?.name), [
    'system-nodes', 'system-node-high', 'probes', 'system-leader-election', 'workload-leader-election', 'endpoint-controller',
    'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts', 'service-accounts', 'global-default', 'exempt', 'catch-all',
  ]);
  for (const o of objects) {
    t.equal(o.metadata?.annotations?.['apf.kubernetes.io/autoupdate-spec'], 'true');
    const k = o.kind === 'FlowSchema' ? fs('v1') : pl('v1');
    const copy = structuredClone(o);
    t.same(create(k, copy), [], `${o.kind} ${o.metadata?.name}`);
    const defaulted = structuredClone(o);
    k.strategy.defaults(defaulted);
    t.ok(jsonEqual(defaulted.spec, o.spec), `${o.metadata?.name}: already in kube's defaulted form`);
  }
});
