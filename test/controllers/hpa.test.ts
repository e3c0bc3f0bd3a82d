/**
 * The horizontalpodautoscaling controller against the real server: without a metrics API the HPA
 * says why it cannot scale; with a small metrics.k8s.io server behind an APIService (reporting the
 * CPU use the test chooses) it scales a Deployment through its scale subresource.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject } from '../../src/client/types';
import { HPA_V2BETA2 } from '../../src/controllers/podautoscaler/horizontal-controller';
import { startApiServer, tempDir, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';
import { makeCa, makeCert } from '../helpers/test-pki';

const METRICS_GV = 'metrics.k8s.io/v1beta1';

/** a metrics.k8s.io server reporting `cpuOf(pod)` for the pods the selector matches */
async function startMetricsServer(t: Parameters<Parameters<typeof t.test>[1]>[0], client: RestClient, cpuOf: (pod: KubeObject) => string) {
  const dir = tempDir(t, 'metrics');
  const ca = makeCa(dir, 'metrics-ca');
  const serving = makeCert(dir, 'metrics', ca, { commonName: 'metrics.kube-system.svc', dnsNames: ['metrics.kube-system.svc'], ips: ['127.0.0.1'], usage: 'server' });
  const server = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'https://x');
    const p = url.pathname.replace(/\/$/, '');
    if (p === `/apis/${METRICS_GV}`) {
      return send(200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: METRICS_GV, resources: [{ name: 'pods', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] }] });
    }
    const m = new RegExp(`^/apis/${METRICS_GV.replace('.', '\\.')}/namespaces/([^/]+)/pods$`).exec(p);
    if (!m) return send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
    void client.list(RESOURCES.pods, m[1], { labelSelector: url.searchParams.get('labelSelector') ?? '' }).then((pods) => {
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      send(200, {
        kind: 'PodMetricsList', apiVersion: METRICS_GV, metadata: {},
        items: pods.items.filter((pod) => (pod.status as { phase?: string } | undefined)?.phase === 'Running').map((pod) => ({
          metadata: { name: pod.metadata?.name, namespace: m[1] }, timestamp: now, window: '30s',
          containers: [{ name: 'c', usage: { cpu: cpuOf(pod), memory: '10Mi' } }],
        })),
      });
    }, (err: Error) => send(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, message: err.message }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, ca: ca.cert };
}

function deployment(name: string, replicas: number): KubeObject {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: {
      replicas, selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '100m' } } }] } },
    },
  };
}

const hpa = (name: string, target: string, utilization: number, max = 10): KubeObject => ({
  apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler', metadata: { name },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, minReplicas: 1, maxReplicas: max,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } }],
  },
});

interface Condition { type: string; status: string; reason: string; message: string }
interface HpaStatus { currentReplicas?: number; desiredReplicas?: number; lastScaleTime?: string; conditions?: Condition[]; currentMetrics?: unknown[] }

t.test('horizontalpodautoscaling controller against the real server', async (t) => {
  const pki = tempDir(t, 'front-proxy');
  const frontCa = makeCa(pki, 'front-proxy-ca');
  const proxyClient = makeCert(pki, 'front-proxy-client', frontCa, { commonName: 'front-proxy-client', usage: 'client' });
  const server = await startApiServer(t, { args: ['--enable-aggregator-routing=true', '--proxy-client-cert-file', proxyClient.certFile, '--proxy-client-key-file', proxyClient.keyFile] });
  const { client } = startControllers(t, server, ['deployment', 'replicaset', 'horizontalpodautoscaling'], {
    horizontalPodAutoscaler: { syncPeriodMs: 300, tolerance: 0.1, downscaleStabilizationMs: 1000, cpuInitializationPeriodMs: 0, initialReadinessDelayMs: 0 },
  });
  startFakeNode(t, client);
  const statusOf = async (name: string) => (await client.get(HPA_V2BETA2, 'default', name)).status as HpaStatus;
  const condition = (s: HpaStatus, type: string) => s.conditions?.find((c) => c.type === type);
  const events = async (name: string) => (await client.list(RESOURCES.events, 'default')).items.filter((e) => (e.involvedObject as { name?: string }).name === name);

  await t.test('without a metrics API: ScalingActive False, FailedGetResourceMetric', async (t) => {
    await client.create(RESOURCES.deployments, 'default', deployment('idle', 2));
    await client.create(HPA_V2BETA2, 'default', hpa('idle', 'idle', 80));
    const s = await waitFor('ScalingActive', async () => {
      const st = await statusOf('idle');
      return condition(st, 'ScalingActive') && st;
    });
    t.match(condition(s, 'ScalingActive'), {
      status: 'False', reason: 'FailedGetResourceMetric',
      message: 'the HPA was unable to compute the replica count: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)',
    });
    t.match(condition(s, 'AbleToScale'), { status: 'True', reason: 'SucceededGetScale' });
    t.match(s, { currentReplicas: 2, desiredReplicas: 0 });
    const e = await waitFor('events', async () => {
      const list = await events('idle');
      return list.some((x) => x.reason === 'FailedComputeMetricsReplicas') && list;
    });
    t.match(e.find((x) => x.reason === 'FailedGetResourceMetric'), {
      type: 'Warning', message: 'unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)',
      source: { component: 'horizontal-pod-autoscaler' },
    });
    t.match(e.find((x) => x.reason === 'FailedComputeMetricsReplicas')?.message, /^invalid metrics \(1 invalid out of 1\), first error is: failed to get cpu utilization: unable to get metrics for resource cpu/);
    t.equal((await client.get(RESOURCES.deployments, 'default', 'idle')).spec?.replicas, 2, 'not scaled');
    // later syncs find the same status and do not write it again
    const rv = (await client.get(HPA_V2BETA2, 'default', 'idle')).metadata?.resourceVersion;
    const seen = (await events('idle')).find((x) => x.reason === 'FailedGetResourceMetric')?.count as number;
    await waitFor('two more syncs', async () => ((await events('idle')).find((x) => x.reason === 'FailedGetResourceMetric')?.count as number) >= seen + 2);
    t.equal((await client.get(HPA_V2BETA2, 'default', 'idle')).metadata?.resourceVersion, rv, 'status not rewritten');
  });

  await t.test('with metrics: scales a Deployment up on high CPU, then holds at maxReplicas', async (t) => {
    let cpu = '200m';
    const metrics = await startMetricsServer(t, client, () => cpu);
    for (const m of [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics', namespace: 'kube-system' }, spec: { ports: [{ name: 'https', port: 443, targetPort: metrics.port }] } },
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'metrics', namespace: 'kube-system' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: metrics.port, protocol: 'TCP' }] }] },
    ]) await client.create(m.kind === 'Service' ? RESOURCES.services : RESOURCES.endpoints, 'kube-system', m as KubeObject);
    await client.create({ group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false }, undefined, {
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.k8s.io' },
      spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics' }, caBundle: Buffer.from(metrics.ca).toString('base64') },
    });
    await client.create(RESOURCES.deployments, 'default', deployment('web', 1));
    await waitFor('web ready', async () => ((await client.get(RESOURCES.deployments, 'default', 'web')).status as { readyReplicas?: number } | undefined)?.readyReplicas === 1);
    await client.create(HPA_V2BETA2, 'default', hpa('web', 'web', 50, 4));
    // 200% of the request against a 50% target: 4 times the one ready pod
    await waitFor('scaled to 4', async () => (await client.get(RESOURCES.deployments, 'default', 'web')).spec?.replicas === 4);
    const rescaled = await waitFor('SuccessfulRescale', async () => (await events('web')).find((e) => e.reason === 'SuccessfulRescale'));
    t.equal(rescaled.message, 'New size: 4; reason: cpu resource utilization (percentage of request) above target');
    const s = await waitFor('status', async () => {
      const st = await statusOf('web');
      return st.desiredReplicas === 4 && st;
    });
    t.ok(s.lastScaleTime, 'lastScaleTime');
    t.match(condition(s, 'AbleToScale'), { status: 'True', reason: 'SucceededRescale', message: 'the HPA controller was able to update the target scale to 4' });
    t.match(condition(s, 'ScalingActive'), { status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' });
    t.match(s.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 200, averageValue: '200m' } } }]);
    const v1 = await client.get(RESOURCES.horizontalPodAutoscalers, 'default', 'web');
    t.equal((v1.status as { currentCPUUtilizationPercentage?: number }).currentCPUUtilizationPercentage, 200, 'autoscaling/v1 view');

    // four pods at 200% would want 16: held at maxReplicas
    const limited = await waitFor('ScalingLimited', async () => {
      const st = await statusOf('web');
      return condition(st, 'ScalingLimited')?.status === 'True' && st;
    });
    t.match(condition(limited, 'ScalingLimited'), { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' });
    t.match(limited, { currentReplicas: 4, desiredReplicas: 4 });

    // on target: no change once the 16 recommended above leaves the (1s) stabilization window
    cpu = '50m';
    const steady = await waitFor('steady at 4', async () => {
      const st = await statusOf('web');
      return condition(st, 'ScalingLimited')?.status === 'False' && st;
    });
    t.match(condition(steady, 'ScalingLimited'), { reason: 'DesiredWithinRange' });
    t.match(condition(steady, 'AbleToScale'), { status: 'True', reason: 'ReadyForNewScale' });
    t.equal((await client.get(RESOURCES.deployments, 'default', 'web')).spec?.replicas, 4);
  });
});
