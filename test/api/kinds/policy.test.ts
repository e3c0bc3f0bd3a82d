import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { PDB_V1BETA1_LABEL, pdbFromV1, pdbToV1 } from '../../../src/api/kinds/policy/pdb-conversion';
import { create, fields, kind } from './helpers';

const now = new Date('2024-05-01T12:00:00Z');

function pdb(version: 'v1' | 'v1beta1', spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: `policy/${version}`,
    kind: 'PodDisruptionBudget',
    metadata: { name: 'budget', namespace: 'default', creationTimestamp: '2024-05-01T11:00:00Z' },
    spec,
  };
}

t.test('PodDisruptionBudget: both versions, one storage, kube names', async (t) => {
  const v1 = kind('policy', 'v1', 'PodDisruptionBudget');
  const beta = kind('policy', 'v1beta1', 'PodDisruptionBudget');
  for (const def of [v1, beta]) {
    t.same([def.shortNames, def.namespaced, def.storageVersion, def.tracksGeneration, def.statusSubresource], [['pdb'], true, 'policy/v1', true, true]);
    t.same(def.storage, { group: 'policy', resource: 'poddisruptionbudgets' });
  }
  t.equal(v1.defaultGarbageCollectionPolicy, 'Background');
  t.equal(beta.defaultGarbageCollectionPolicy, 'Orphan', 'kube keeps orphaning for v1beta1 requests');
});

t.test('PodDisruptionBudget: validation', async (t) => {
  const def = kind('policy', 'v1', 'PodDisruptionBudget');
  const ok = pdb('v1', { minAvailable: 2, selector: { matchLabels: { app: 'web' } } });
  t.same(create(def, ok), []);
  t.same(ok.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  t.same(create(def, pdb('v1', { maxUnavailable: '50%', selector: {} })), []);
  const both = create(def, pdb('v1', { minAvailable: 1, maxUnavailable: 1 }));
  t.same(fields(both), ['spec']);
  t.match(both[0].message, /minAvailable and maxUnavailable cannot be both set$/);
  t.same(create(def, pdb('v1', { minAvailable: -1 })), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.minAvailable' },
  ]);
  t.same(create(def, pdb('v1', { maxUnavailable: '150%' })), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "150%": must not be greater than 100%', field: 'spec.maxUnavailable' },
  ]);
  t.same(fields(create(def, pdb('v1', { minAvailable: 'half' }))), ['spec.minAvailable']);
  t.same(fields(create(def, pdb('v1', { selector: { matchExpressions: [{ key: 'a', operator: 'In' }] } }))), ['spec.selector.matchExpressions[0].values']);
  t.same(create(def, pdb('v1', { unhealthyPodEvictionPolicy: 'Never' })), [
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"', field: 'spec.unhealthyPodEvictionPolicy' },
  ]);
  const status = { ...ok, status: { disruptionsAllowed: -1, currentHealthy: 0, desiredHealthy: 0, expectedPods: -2 } };
  t.same(fields(def.strategy.validateStatus!(status, ok)), ['status.disruptionsAllowed', 'status.expectedPods']);
});

t.test('PodDisruptionBudget: table', async (t) => {
  const def = kind('policy', 'v1beta1', 'PodDisruptionBudget');
  t.same(def.table!.columns.map((c) => [c.name, c.type]), [
    ['Name', 'string'], ['Min Available', 'string'], ['Max Unavailable', 'string'], ['Allowed Disruptions', 'integer'], ['Age', 'string'],
  ]);
  const obj = pdb('v1beta1', { maxUnavailable: '25%' });
  obj.status = { disruptionsAllowed: 3 };
  t.same(def.table!.cells(obj, now), ['budget', 'N/A', '25%', 3, '60m']);
  t.same(def.table!.cells(pdb('v1beta1', { minAvailable: 2 }), now).slice(1, 4), ['2', 'N/A', 0]);
});

t.test('PodDisruptionBudget: v1beta1 empty selectors round-trip through the v1 storage form', async (t) => {
  const exists = { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'Exists' }] };
  const doesNotExist = { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'DoesNotExist' }] };
  const sel = (o: KubeObject) => (o.spec as Record<string, unknown>).selector;
  // v1beta1 {} selects nothing: stored with the reserved Exists expression, read back as {}
  const none = pdbToV1(pdb('v1beta1', { selector: {} }));
  t.equal(none.apiVersion, 'policy/v1');
  t.same(sel(none), exists);
  t.same(sel(pdbFromV1(none)), {});
  t.same(sel(pdbToV1(pdb('v1beta1', { selector: { matchLabels: {}, matchExpressions: [] } }))), exists, 'empty lists are empty selectors');
  // v1 {} selects everything: v1beta1 sees the reserved DoesNotExist expression, and writes it back as {}
  const all = pdbFromV1(pdb('v1', { selector: {} }));
  t.equal(all.apiVersion, 'policy/v1beta1');
  t.same(sel(all), doesNotExist);
  t.same(sel(pdbToV1(all)), {});
  // other selectors pass unchanged, minus expressions on the reserved key
  const mixed = pdbToV1(pdb('v1beta1', { selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'Exists' }, { key: 'tier', operator: 'Exists' }] } }));
  t.same(sel(mixed), { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] });
  t.same(sel(pdbFromV1(pdb('v1', { selector: { matchLabels: { app: 'web' } } }))), { matchLabels: { app: 'web' } });
  const strippedAll = pdbToV1(pdb('v1beta1', { selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'Exists' }] } }));
  t.same(sel(strippedAll), { matchLabels: { app: 'web' } });
  // no selector at all stays absent both ways
  t.equal(sel(pdbToV1(pdb('v1beta1', {}))), undefined);
  t.equal(sel(pdbFromV1(pdb('v1', {}))), undefined);
});

t.test('PodSecurityPolicy: kube 1.20 defaults, validation and table', async (t) => {
  const def = kind('policy', 'v1beta1', 'PodSecurityPolicy');
  t.same([def.namespaced, def.shortNames, def.storageVersion], [false, ['psp'], 'policy/v1beta1']);
  const base = {
    seLinux: { rule: 'RunAsAny' },
    runAsUser: { rule: 'MustRunAsNonRoot' },
    supplementalGroups: { rule: 'RunAsAny' },
    fsGroup: { rule: 'MustRunAs', ranges: [{ min: 1, max: 65535 }] },
  };
  const psp = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
    apiVersion: 'policy/v1beta1',
    kind: 'PodSecurityPolicy',
    metadata: { name: 'restricted', ...(annotations ? { annotations } : {}) },
    spec: { ...base, ...spec },
  });
  const ok = psp({ volumes: ['configMap', 'secret'], allowedCapabilities: ['NET_ADMIN', 'SYS_TIME'], readOnlyRootFilesystem: true });
  t.same(create(def, ok), []);
  t.equal((ok.spec as Record<string, unknown>).allowPrivilegeEscalation, true);
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Priv', 'Caps', 'SELinux', 'RunAsUser', 'FsGroup', 'SupGroup', 'ReadOnlyRootFs', 'Volumes']);
  t.same(def.table!.cells(ok, now), ['restricted', 'false', 'NET_ADMIN,SYS_TIME', 'RunAsAny', 'MustRunAsNonRoot', 'MustRunAs', 'RunAsAny', true, 'configMap,secret']);

  t.same(create(def, psp({ runAsUser: { rule: 'Anyone' } })), [
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Anyone": supported values: "MustRunAs", "MustRunAsNonRoot", "RunAsAny"', field: 'spec.runAsUser.rule' },
  ]);
  t.same(create(def, psp({ fsGroup: { rule: 'MustRunAs', ranges: [{ min: 10, max: 5 }, { min: -1, max: 3 }] } })), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: 10: min cannot be greater than max', field: 'spec.fsGroup.ranges[0]' },
    { reason: 'FieldValueInvalid', message: 'Invalid value: -1: min cannot be negative', field: 'spec.fsGroup.ranges[1].min' },
  ]);
  t.same(fields(create(def, psp({ volumes: ['hostPath', 'floppy'] }))), ['spec.volumes']);
  t.same(fields(create(def, psp({ allowedCapabilities: ['*'], requiredDropCapabilities: ['ALL'] }))), ['requiredDropCapabilities']);
  t.same(create(def, psp({ defaultAddCapabilities: ['CHOWN'], requiredDropCapabilities: ['CHOWN'] })), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "CHOWN": capability is listed in defaultAddCapabilities and requiredDropCapabilities', field: 'defaultAddCapabilities' },
  ]);
  t.same(fields(create(def, psp({ defaultAllowPrivilegeEscalation: true, allowPrivilegeEscalation: false }))), ['spec.defaultAllowPrivilegeEscalation']);
  t.same(fields(create(def, psp({ allowedHostPaths: [{ pathPrefix: '/var/../etc' }], allowedProcMountTypes: ['Weird'] }))), [
    'spec.allowedProcMountTypes[0]', 'spec.allowedHostPaths[0]',
  ]);
  t.same(create(def, psp({ allowedUnsafeSysctls: ['kernel.msg*'], forbiddenSysctls: ['kernel.msgmax'] })), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "kernel.msgmax": sysctl overlaps with kernel.msg*', field: 'spec.forbiddenSysctls[0]' },
  ]);
  t.same(fields(create(def, psp({ forbiddenSysctls: ['*', 'net.ipv4.ip_forward'] }))), ['spec.forbiddenSysctls.items']);
  t.same(fields(create(def, psp({ runtimeClass: { allowedRuntimeClassNames: ['gvisor', 'gvisor'], defaultRuntimeClassName: 'kata' } }))), [
    'spec.runtimeClass.allowedRuntimeClassNames[1]', 'spec.runtimeClass.allowedRuntimeClassNames',
  ]);
  t.same(fields(create(def, psp({}, { 'seccomp.security.alpha.kubernetes.io/defaultProfileName': 'bogus' }))), [
    'metadata.annotations[seccomp.security.alpha.kubernetes.io/defaultProfileName]',
  ]);
  t.same(create(def, psp({}, { 'seccomp.security.alpha.kubernetes.io/allowedProfileNames': 'runtime/default,*', 'apparmor.security.beta.kubernetes.io/defaultProfileName': 'runtime/default' })), []);
});
