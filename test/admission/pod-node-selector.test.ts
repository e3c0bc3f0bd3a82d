import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { namespace, pod, write } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { buildAdmission, loadAdmissionConfig } from '../../src/admission/index';
import { Scheme } from '../../src/api/scheme';
import { builtinKinds } from '../../src/api/kinds';
import { admissionFixture } from './admission-fixture';
import { admissionConfigWithPath } from './config-helpers';

const withSelector = (name: string, selector: Record<string, string>): KubeObject => {
  const p = pod(name, 'team');
  (p.spec as Record<string, unknown>).nodeSelector = selector;
  return p;
};

t.test('PodNodeSelector: namespace selector merged, conflicts and whitelist refused, cluster default', async (t) => {
  const configurations = new Map<string, unknown>([['PodNodeSelector', { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'zone=a', team: 'env=prod,tier=web' } }]]);
  const f = await admissionFixture(['PodNodeSelector'], { configurations });
  t.teardown(() => f.close());
  const ns = namespace('team');
  ns.metadata!.annotations = { 'scheduler.alpha.kubernetes.io/node-selector': 'env=prod' };
  await f.registry.create(f.target('namespaces'), ns, write);
  const merged = await f.registry.create(f.target('pods', 'team'), withSelector('a', { tier: 'web' }), write);
  t.same((merged.object.spec as { nodeSelector: unknown }).nodeSelector, { env: 'prod', tier: 'web' });
  await rejects(t, f.registry.create(f.target('pods', 'team'), withSelector('b', { env: 'dev' }), write), 403, 'Forbidden',
    'pods "b" is forbidden: pod node label selector conflicts with its namespace node label selector');
  await rejects(t, f.registry.create(f.target('pods', 'team'), withSelector('c', { disk: 'ssd' }), write), 403, 'Forbidden',
    'pods "c" is forbidden: pod node label selector labels conflict with its namespace whitelist');
  const plain = await f.registry.create(f.target('pods', 'default'), pod('d'), write);
  t.same((plain.object.spec as { nodeSelector: unknown }).nodeSelector, { zone: 'a' }, 'namespaces without the annotation get the cluster default');
});

t.test('PodNodeSelector: a bad configuration stops start-up naming the file', async (t) => {
  const { file, ownFile } = admissionConfigWithPath(t, 'PodNodeSelector', 'podNodeSelectorPluginConfig:\n  team: "env in (a)"\n');
  const configurations = loadAdmissionConfig(file);
  t.throws(() => buildAdmission({ scheme: new Scheme(builtinKinds()), enabled: ['PodNodeSelector'], configurations }),
    { message: `admission-control-config-file ${ownFile}: PodNodeSelector: podNodeSelectorPluginConfig.team: invalid selector: "env in (a)"` });
});
