/**
 * kubectl 1.32 and 1.20 against the networking, scheduling and storage kinds: `kubectl create
 * ingress` and Ingress manifests in networking.k8s.io/v1beta1 and extensions/v1beta1, read back in
 * the other versions; `kubectl create priorityclass` beside the system classes, whose deletion is
 * refused; a default StorageClass marked in `kubectl get sc`.
 */
import t from 'tap';
import yaml from 'js-yaml';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import type { KubectlVersion } from './harness';

const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];

type Json = Record<string, any>;

const betaIngress = (apiVersion: string, name: string, ns: string) => `
apiVersion: ${apiVersion}
kind: Ingress
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  backend:
    serviceName: fallback
    servicePort: 80
  rules:
  - host: ${name}.example.com
    http:
      paths:
      - path: /
        backend:
          serviceName: web
          servicePort: http
`;

for (const version of VERSIONS) {
  t.test(`kubectl ${version}: ingresses, priority classes, storage classes`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    const k = kubectlFor(t, version, server);
    const ns = `net-${version.replace('.', '-')}`;
    await k.ok(['create', 'namespace', ns]);

    t.test('create ingress (the kubectl generator, networking.k8s.io/v1)', async (t) => {
      const out = await k.ok(['create', 'ingress', 'shop', '-n', ns, '--class=nginx', '--rule=shop.example.com/api*=api:8080', '--rule=shop.example.com/=web:http,tls=shop-tls']);
      t.match(out, 'ingress.networking.k8s.io/shop created');
      const ing = await k.json<Json>(['get', 'ingresses.v1.networking.k8s.io', 'shop', '-n', ns]);
      t.equal(ing.apiVersion, 'networking.k8s.io/v1');
      t.equal(ing.spec.ingressClassName, 'nginx');
      const paths = ing.spec.rules.flatMap((r: Json) => r.http.paths);
      t.same(paths.find((p: Json) => p.path === '/api'), { path: '/api', pathType: 'Prefix', backend: { service: { name: 'api', port: { number: 8080 } } } });
      t.same(paths.find((p: Json) => p.path === '/').backend, { service: { name: 'web', port: { name: 'http' } } });
    });

    t.test('apply networking.k8s.io/v1beta1 and extensions/v1beta1 Ingresses', async (t) => {
      t.match(await k.ok(['apply', '-f', '-'], betaIngress('networking.k8s.io/v1beta1', 'old-net', ns)), /ingress\.networking\.k8s\.io\/old-net created/);
      t.match(await k.ok(['apply', '-f', '-'], betaIngress('extensions/v1beta1', 'old-ext', ns)), /ingress\.extensions\/old-ext created/);
      // re-applying sends the rules again (the server defaulted pathType inside the atomic list, as
      // kube does), and nothing changes
      t.match(await k.ok(['apply', '-f', '-'], betaIngress('extensions/v1beta1', 'old-ext', ns)), /ingress\.extensions\/old-ext (configured|unchanged)/);
      t.equal((await k.json<Json>(['get', 'ingresses.v1beta1.extensions', 'old-ext', '-n', ns])).metadata.generation, 1);
      const table = await k.ok(['get', 'ingress', '-n', ns]);
      t.match(table, /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE/m);
      t.match(table, /^shop\s+nginx\s+shop\.example\.com\s+80, 443\s/m);
      t.match(table, /^old-net\s+<none>\s+old-net\.example\.com\s+80\s/m);
      t.match(table, /^old-ext\s+<none>\s+old-ext\.example\.com\s+80\s/m);
      for (const name of ['old-net', 'old-ext']) {
        const v1 = await k.json<Json>(['get', 'ingresses.v1.networking.k8s.io', name, '-n', ns]);
        t.same(v1.spec, {
          defaultBackend: { service: { name: 'fallback', port: { number: 80 } } },
          rules: [{ host: `${name}.example.com`, http: { paths: [{ path: '/', pathType: 'ImplementationSpecific', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }],
        }, `${name} read as v1`);
      }
    });

    t.test('a v1 Ingress read through extensions/v1beta1', async (t) => {
      const ext = yaml.load(await k.ok(['get', 'ingresses.v1beta1.extensions', 'shop', '-n', ns, '-o', 'yaml'])) as Json;
      t.equal(ext.apiVersion, 'extensions/v1beta1');
      const paths = ext.spec.rules.flatMap((r: Json) => r.http.paths);
      t.same(paths.find((p: Json) => p.path === '/api').backend, { serviceName: 'api', servicePort: 8080 });
      t.same(paths.find((p: Json) => p.path === '/').backend, { serviceName: 'web', servicePort: 'http' });
      t.same(ext.spec.tls, [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }]);
    });

    t.test('priority classes: create, the system classes listed, their deletion refused', async (t) => {
      t.match(await k.ok(['create', 'priorityclass', 'high', '--value=1000', '--description=important']), 'priorityclass.scheduling.k8s.io/high created');
      const table = await k.ok(['get', 'pc']);
      t.match(table, /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY/m);
      t.match(table, /^high\s+1000\s+false\s+\S+\s+PreemptLowerPriority/m);
      t.match(table, /^system-cluster-critical\s+2000000000\s+false\s/m);
      t.match(table, /^system-node-critical\s+2000001000\s+false\s/m);
      const refused = await k.run(['delete', 'pc', 'system-node-critical']);
      t.not(refused.code, 0);
      t.match(refused.stderr, 'Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted');
      t.match(await k.ok(['get', 'pc', 'system-node-critical', '-o', 'name']), 'priorityclass.scheduling.k8s.io/system-node-critical');
      t.match(await k.ok(['delete', 'pc', 'high']), 'priorityclass.scheduling.k8s.io "high" deleted');
    });

    t.test('storage classes: the default one is marked', async (t) => {
      const manifest = `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
provisioner: ebs.csi.aws.com
allowVolumeExpansion: true
reclaimPolicy: Retain
`;
      await k.ok(['apply', '-f', '-'], manifest);
      const table = await k.ok(['get', 'sc']);
      t.match(table, /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE/m);
      t.match(table, /^standard \(default\)\s+rancher\.io\/local-path\s+Delete\s+WaitForFirstConsumer\s+false\s/m);
      t.match(table, /^fast\s+ebs\.csi\.aws\.com\s+Retain\s+Immediate\s+true\s/m);
      const refused = await k.run(['patch', 'sc', 'fast', '--type=merge', '-p', '{"provisioner":"other.example.com"}']);
      t.not(refused.code, 0);
      t.match(refused.stderr, 'provisioner: Forbidden: updates to provisioner are forbidden.');
    });
  });
}
