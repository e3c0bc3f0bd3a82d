import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { pod, write } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { admissionFixture } from './admission-fixture';

const antiAffine = (name: string, topologyKey: string): KubeObject => {
  const p = pod(name);
  (p.spec as Record<string, unknown>).affinity = {
    podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'x' } }, topologyKey }] },
  };
  return p;
};

t.test('LimitPodHardAntiAffinityTopology: only the hostname topology key for required anti-affinity', async (t) => {
  const f = await admissionFixture(['LimitPodHardAntiAffinityTopology']);
  t.teardown(() => f.close());
  const ok = await f.registry.create(f.target('pods', 'default'), antiAffine('a', 'kubernetes.io/hostname'), write);
  t.equal(ok.object.metadata?.name, 'a');
  await rejects(t, f.registry.create(f.target('pods', 'default'), antiAffine('b', 'topology.kubernetes.io/zone'), write), 403, 'Forbidden',
    'pods "b" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed');
});
