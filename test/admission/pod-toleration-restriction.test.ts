import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { namespace, pod, write } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { buildAdmission, loadAdmissionConfig } from '../../src/admission/index';
import { Scheme } from '../../src/api/scheme';
import { builtinKinds } from '../../src/api/kinds';
import { admissionFixture } from './admission-fixture';
import { admissionConfigWithPath } from './config-helpers';

const tolerating = (name: string, ns: string, tolerations: unknown[]): KubeObject => {
  const p = pod(name, ns);
  (p.spec as Record<string, unknown>).tolerations = tolerations;
  return p;
};
const gpu = { key: 'gpu', operator: 'Exists', effect: 'NoSchedule' };

t.test('PodTolerationRestriction: defaults merged, conflicts and whitelist refused', async (t) => {
  const configurations = new Map<string, unknown>([['PodTolerationRestriction', {
    apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1', kind: 'Configuration',
    default: [{ key: 'cluster', operator: 'Exists' }],
  }]]);
  const f = await admissionFixture(['PodTolerationRestriction'], { configurations });
  t.teardown(() => f.close());
  const ns = namespace('team');
  ns.metadata!.annotations = {
    'scheduler.alpha.kubernetes.io/defaultTolerations': JSON.stringify([gpu]),
    'scheduler.alpha.kubernetes.io/tolerationsWhitelist': JSON.stringify([gpu, { key: 'spot', operator: 'Exists' }]),
  };
  await f.registry.create(f.target('namespaces'), ns, write);
  const merged = await f.registry.create(f.target('pods', 'team'), tolerating('a', 'team', [{ key: 'spot', operator: 'Equal', value: 'yes', effect: 'NoSchedule' }]), write);
  t.same((merged.object.spec as { tolerations: unknown }).tolerations, [gpu, { key: 'spot', operator: 'Equal', value: 'yes', effect: 'NoSchedule' }]);
  await rejects(t, f.registry.create(f.target('pods', 'team'), tolerating('b', 'team', [{ key: 'gpu', operator: 'Equal', value: 'x', effect: 'NoSchedule' }]), write), 403, 'Forbidden',
    'pods "b" is forbidden: namespace tolerations and pod tolerations conflict');
  await rejects(t, f.registry.create(f.target('pods', 'team'), tolerating('c', 'team', [{ key: 'dedicated', operator: 'Exists' }]), write), 403, 'Forbidden',
    'pods "c" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
  const plain = await f.registry.create(f.target('pods', 'default'), pod('d'), write);
  t.same((plain.object.spec as { tolerations: unknown }).tolerations, [{ key: 'cluster', operator: 'Exists' }], 'the cluster default where the namespace names none');
});

t.test('PodTolerationRestriction: a bad configuration stops start-up naming the file', async (t) => {
  const { file, ownFile } = admissionConfigWithPath(t, 'PodTolerationRestriction', 'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Configuration\nwhitelist: gpu\n');
  t.throws(() => buildAdmission({ scheme: new Scheme(builtinKinds()), enabled: ['PodTolerationRestriction'], configurations: loadAdmissionConfig(file) }),
    { message: `admission-control-config-file ${ownFile}: PodTolerationRestriction: whitelist must be a list of tolerations` });
});

t.test('PodTolerationRestriction: an empty namespace annotation overrides the cluster default; Burstable pods tolerate memory pressure', async (t) => {
  const configurations = new Map<string, unknown>([['PodTolerationRestriction', {
    apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1', kind: 'Configuration', default: [{ key: 'cluster', operator: 'Exists' }],
  }]]);
  const f = await admissionFixture(['PodTolerationRestriction'], { configurations });
  t.teardown(() => f.close());
  const ns = namespace('bare');
  ns.metadata!.annotations = { 'scheduler.alpha.kubernetes.io/defaultTolerations': '' };
  await f.registry.create(f.target('namespaces'), ns, write);
  const burstable = pod('b', 'bare');
  (burstable.spec as { containers: Array<Record<string, unknown>> }).containers[0].resources = { requests: { cpu: '100m' } };
  const res = await f.registry.create(f.target('pods', 'bare'), burstable, write);
  t.same((res.object.spec as { tolerations: unknown }).tolerations, [{ key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }]);
});
