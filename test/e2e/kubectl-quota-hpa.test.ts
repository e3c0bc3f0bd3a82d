/**
 * kubectl 1.32 against the real server with the policy controllers running in the test process:
 * `kubectl create quota` and `describe quota` (use kept by the resourcequota controller),
 * `kubectl create pdb` and `get pdb` (ALLOWED DISRUPTIONS from the disruption controller),
 * `kubectl autoscale` and `get hpa` (TARGETS unknown while no metrics API is served).
 */
import t from 'tap';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';
import { kubectlFor, missingKubectl, startApiServer, waitFor } from './harness';

const podYaml = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
`;

t.test('quota, pdb and hpa with kubectl 1.32', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['resourcequota', 'disruption', 'horizontalpodautoscaling', 'deployment', 'replicaset'], {
    horizontalPodAutoscaler: { syncPeriodMs: 500, tolerance: 0.1, downscaleStabilizationMs: 300_000, cpuInitializationPeriodMs: 300_000, initialReadinessDelayMs: 30_000 },
  });
  startFakeNode(t, client);
  const k = kubectlFor(t, '1.32', server);

  await t.test('create quota, describe quota shows Used', async (t) => {
    await k.ok(['create', 'quota', 'q', '--hard=pods=5,count/deployments.apps=2,services=3']);
    await waitFor('quota accounted', async () => (await k.json<{ status?: { used?: Record<string, string> } }>(['get', 'quota', 'q'])).status?.used?.pods === '0');
    await k.ok(['create', '-f', '-'], podYaml('solo'));
    await k.ok(['create', 'deployment', 'web', '--image=busybox', '--replicas=2']);
    const out = await waitFor('describe with use', async () => {
      const d = await k.ok(['describe', 'quota', 'q']);
      return /^pods\s+3\s+5$/m.test(d) && d;
    });
    t.match(out, /^Resource\s+Used\s+Hard$/m);
    t.match(out, /^count\/deployments\.apps\s+1\s+2$/m);
    t.match(out, /^services\s+1\s+3$/m, 'the kubernetes Service counts');
    await k.ok(['delete', 'pod', 'solo', '--wait=false']);
    await waitFor('use given back', async () => /^pods\s+2\s+5$/m.test(await k.ok(['describe', 'quota', 'q'])));
  });

  await t.test('create pdb, get pdb shows ALLOWED DISRUPTIONS', async (t) => {
    await k.ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=1']);
    const out = await waitFor('allowed', async () => {
      const g = await k.ok(['get', 'pdb', 'web']);
      return /^web\s+1\s+N\/A\s+1\s+/m.test(g) && g;
    });
    t.match(out, /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/m);
  });

  await t.test('autoscale, get hpa shows unknown targets without metrics', async (t) => {
    await k.ok(['autoscale', 'deployment', 'web', '--cpu-percent=80', '--min=1', '--max=3']);
    const out = await waitFor('hpa status', async () => {
      const g = await k.ok(['get', 'hpa', 'web']);
      return /^web\s+Deployment\/web\s+cpu: <unknown>\/80%\s+1\s+3\s+2\s+/m.test(g) && g;
    });
    t.match(out, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/m);
    const d = await waitFor('describe hpa', async () => {
      const s = await k.ok(['describe', 'hpa', 'web']);
      return /FailedGetResourceMetric/.test(s) && s;
    });
    t.match(d, /ScalingActive\s+False\s+FailedGetResourceMetric/);
  });
});
