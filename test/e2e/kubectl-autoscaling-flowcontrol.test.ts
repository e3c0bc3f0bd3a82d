/**
 * kubectl 1.32 and 1.20 against the real server: `kubectl autoscale` (both post autoscaling/v1;
 * kubectl posts v2 from 1.33), the HPA read back in every version and as a table, and the APF
 * objects kube creates at start (`kubectl get flowschemas,prioritylevelconfigurations`).
 *
 * A version is asked for by the full resource name (`horizontalpodautoscalers.v2beta2.autoscaling`):
 * kubectl's short-name expander drops the version of `hpa.v2beta2.autoscaling` and reads the
 * preferred version, against kube as here.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import t from 'tap';
import yaml from 'js-yaml';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';
import type { KubectlVersion } from './harness';
import { deployment, namespace } from './manifests';
import type { Obj } from './manifests';

const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];

type Hpa = Obj & { apiVersion: string; spec: Record<string, unknown>; status: Record<string, unknown> };

for (const version of VERSIONS) {
  t.test(`kubectl ${version}`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    const k = kubectlFor(t, version, server);
    const ns = `hpa-${version.replace('.', '-')}`;
    await k.ok(['create', '-f', '-'], namespace(ns));
    await k.ok(['apply', '-f', '-'], deployment('web', ns, { replicas: 1 }));
    await k.ok(['apply', '-f', '-'], deployment('api', ns, { replicas: 1 }));

    t.test('kubectl autoscale, then get hpa as a table', async (t) => {
      t.match(await k.ok(['autoscale', 'deployment', 'web', '-n', ns, '--min=2', '--max=5', '--cpu-percent=60']), 'horizontalpodautoscaler.autoscaling/web autoscaled');
      t.match(await k.ok(['autoscale', 'deployment', 'api', '-n', ns, '--max=3']), 'horizontalpodautoscaler.autoscaling/api autoscaled');
      const table = await k.ok(['get', 'hpa', '-n', ns]);
      t.match(table, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/m);
      t.match(table, /^web\s+Deployment\/web\s+cpu: <unknown>\/60%\s+2\s+5\s+0\s+\S+$/m);
      t.match(table, /^api\s+Deployment\/api\s+cpu: <unknown>\/80%\s+1\s+3\s+0\s+\S+$/m, 'no --cpu-percent: 80%');
    });

    t.test('the HPA reads back in every version', async (t) => {
      const v2 = yaml.load(await k.ok(['get', 'horizontalpodautoscalers.v2.autoscaling', 'web', '-n', ns, '-o', 'yaml'])) as Hpa;
      t.equal(v2.apiVersion, 'autoscaling/v2');
      t.same(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
      t.same(v2.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' });
      const beta2 = yaml.load(await k.ok(['get', 'horizontalpodautoscalers.v2beta2.autoscaling', 'web', '-n', ns, '-o', 'yaml'])) as Hpa;
      t.equal(beta2.apiVersion, 'autoscaling/v2beta2');
      t.same(beta2.spec.metrics, v2.spec.metrics);
      if (version === '1.20') {
        // kubectl 1.20's short-name expander keeps the version
        const short = yaml.load(await k.ok(['get', 'hpa.v2beta2.autoscaling', 'web', '-n', ns, '-o', 'yaml'])) as Hpa;
        t.equal(short.apiVersion, 'autoscaling/v2beta2');
      }
      const beta1 = await k.json<Hpa>(['get', 'horizontalpodautoscalers.v2beta1.autoscaling', 'web', '-n', ns]);
      t.equal(beta1.apiVersion, 'autoscaling/v2beta1');
      t.same(beta1.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 60 } }]);
      const v1 = await k.json<Hpa>(['get', 'horizontalpodautoscalers.v1.autoscaling', 'web', '-n', ns]);
      t.equal(v1.apiVersion, 'autoscaling/v1');
      t.equal(v1.spec.targetCPUUtilizationPercentage, 60);
      t.equal(v1.spec.minReplicas, 2);
      const api = await k.json<Hpa>(['get', 'horizontalpodautoscalers.v1.autoscaling', 'api', '-n', ns]);
      t.equal(api.spec.targetCPUUtilizationPercentage, 80, 'v1 shows the implicit 80%');
      t.equal(api.spec.minReplicas, 1);
    });

    t.test('a v2 change shows in v1 annotations, and v1 writes keep it', async (t) => {
      const patch = JSON.stringify({ spec: { metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } }, { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }], behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } });
      await k.ok(['patch', 'horizontalpodautoscalers.v2.autoscaling', 'web', '-n', ns, '--type=merge', '-p', patch]);
      const v1 = await k.json<Hpa>(['get', 'horizontalpodautoscalers.v1.autoscaling', 'web', '-n', ns]);
      const annotations = v1.metadata.annotations ?? {};
      t.same(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/metrics']), [{ type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } }]);
      t.match(annotations['autoscaling.alpha.kubernetes.io/behavior'], '"ScaleDown":{"StabilizationWindowSeconds":60');
      // a v1 client's label change (a read-modify-write in v1) loses nothing
      await k.ok(['label', 'horizontalpodautoscalers.v1.autoscaling', 'web', '-n', ns, 'tier=front']);
      const v2 = await k.json<Hpa>(['get', 'horizontalpodautoscalers.v2.autoscaling', 'web', '-n', ns]);
      t.equal(v2.metadata.labels?.tier, 'front');
      t.equal((v2.spec.metrics as unknown[]).length, 2);
      t.equal(((v2.spec.behavior as Record<string, Record<string, unknown>>).scaleDown).stabilizationWindowSeconds, 60);
      t.notOk(v2.metadata.annotations?.['autoscaling.alpha.kubernetes.io/metrics'], 'v2 carries no round-trip annotation');
      t.match(await k.ok(['get', 'hpa', 'web', '-n', ns]), /memory: <unknown>\/500Mi, cpu: <unknown>\/60%/);
    });

    t.test('invalid HPAs are refused with kube\'s causes', async (t) => {
      const bad = JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad', namespace: ns }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 4, maxReplicas: 2 } });
      const r = await k.run(['create', '-f', '-'], bad);
      t.not(r.code, 0);
      t.match(r.stderr, 'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`');
    });

    t.test('kubectl get flowschemas,prioritylevelconfigurations', async (t) => {
      const out = await k.ok(['get', 'flowschemas,prioritylevelconfigurations']);
      t.match(out, /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL$/m);
      // MISSINGPL is the Dangling condition the priority-and-fairness controller keeps (False: the level exists)
      t.match(out, /^flowschema\.flowcontrol\.apiserver\.k8s\.io\/exempt\s+exempt\s+1\s+<none>\s+\S+\s+False$/m);
      t.match(out, /^flowschema\.flowcontrol\.apiserver\.k8s\.io\/kube-scheduler\s+workload-high\s+800\s+ByNamespace\s+\S+\s+False$/m);
      t.match(out, /^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE$/m);
      t.match(out, /^prioritylevelconfiguration\.flowcontrol\.apiserver\.k8s\.io\/workload-low\s+Limited\s+100\s+128\s+6\s+50\s+\S+$/m);
      t.match(out, /^prioritylevelconfiguration\.flowcontrol\.apiserver\.k8s\.io\/exempt\s+Exempt\s+<none>\s+<none>\s+<none>\s+<none>\s+\S+$/m);
      const catchAll = await k.json<Obj & { spec: Record<string, unknown> }>(['get', 'prioritylevelconfigurations.v1beta1.flowcontrol.apiserver.k8s.io', 'catch-all']);
      t.equal((catchAll.spec.limited as Record<string, unknown>).assuredConcurrencyShares, 5, 'v1beta1 names them assured');
      // the mandatory spec is fixed
      const r = await k.run(['patch', 'flowschema', 'catch-all', '--type=merge', '-p', '{"spec":{"matchingPrecedence":9000}}']);
      t.not(r.code, 0);
      t.match(r.stderr, "spec of 'catch-all' must equal the fixed value");
    });
  });
}

t.test('--runtime-config turns versions on and off', { skip: missingKubectl('1.32') ?? false }, async (t) => {
  const server = await startApiServer(t, { args: ['--runtime-config=batch/v2alpha1=true,autoscaling/v2beta1=false'] });
  const k = kubectlFor(t, '1.32', server);
  const versions = (await k.ok(['api-versions'])).split('\n');
  t.ok(versions.includes('batch/v2alpha1'), 'an alpha version turned on');
  t.notOk(versions.includes('autoscaling/v2beta1'), 'a beta version turned off');
  t.ok(versions.includes('autoscaling/v2beta2'));
  t.notOk(versions.includes('internal.apiserver.k8s.io/v1alpha1'), 'alpha stays off unless asked');
  t.notOk(versions.includes('flowcontrol.apiserver.k8s.io/v1alpha1'));
  t.equal((await server.request('GET', '/apis/autoscaling/v2beta1')).status, 404);
  const batch = JSON.parse((await server.request('GET', '/apis/batch')).body) as { versions: Array<{ version: string }> };
  t.same(batch.versions.map((v) => v.version), ['v1', 'v1beta1', 'v2alpha1']);
  await k.ok(['create', 'cronjob', 'report', '--image=busybox', '--schedule=*/5 * * * *', '-n', 'default']);
  const alpha = await k.json<Obj & { apiVersion: string }>(['get', 'cronjobs.v2alpha1.batch', 'report', '-n', 'default']);
  t.equal(alpha.apiVersion, 'batch/v2alpha1');
  const openapi = JSON.parse((await server.request('GET', '/openapi/v2')).body) as { paths: Record<string, unknown> };
  t.ok(openapi.paths['/apis/batch/v2alpha1/namespaces/{namespace}/cronjobs'], 'OpenAPI follows');
  t.notOk(openapi.paths['/apis/autoscaling/v2beta1/namespaces/{namespace}/horizontalpodautoscalers']);
});

t.test('a bad --runtime-config stops the start with one line', { skip: missingKubectl('1.32') ?? false }, async (t) => {
  const cases: Array<[string, string]> = [
    ['autoscaling/v9=true', 'Error: invalid argument for "--runtime-config" flag: group version autoscaling/v9 that has not been registered'],
    ['foo.example.com/v1=true', 'Error: invalid argument for "--runtime-config" flag: unknown api groups foo.example.com'],
    ['api/all=false', 'Error: invalid argument for "--runtime-config" flag: invalid key with only api/all=false'],
    ['batch/v1=maybe', 'Error: invalid argument "batch/v1=maybe" for "--runtime-config" flag: invalid value of batch/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
  ];
  const dataDir = tempDir(t, 'runtime-config');
  for (const [value, message] of cases) {
    const r = spawnSync(process.execPath, [MAIN_JS, 'apiserver', '--data-dir', dataDir, '--secure-port', String(await freePort()), '--bind-address', '127.0.0.1', `--runtime-config=${value}`], { encoding: 'utf8', timeout: 30_000 });
    t.equal(r.status, 1, value);
    t.equal(r.stdout, '');
    // flag errors found while parsing add kube's usage hint on a second line
    t.same(r.stderr.trim().split('\n').filter((l) => !l.startsWith('Run ')), [message], value);
  }
  t.same(fs.readdirSync(dataDir), [], 'nothing was opened or written');
});
