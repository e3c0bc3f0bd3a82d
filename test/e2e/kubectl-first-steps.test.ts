/**
 * What a new user does first, with kubectl 1.32 and 1.20 against the real server: apply chart-style
 * manifests full of nulls, a StatefulSet mounting its claim template, delete a pod no node runs,
 * ask for logs and exec. Each was broken once (nulls stored or refused, the StatefulSet refused,
 * the pod Terminating for ever, logs and exec answering NotFound).
 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import type { KubectlVersion } from './harness';
import { namespace } from './manifests';

const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];

/** what `helm template` renders from values left empty */
const chartWithNulls = (ns: string): string => `
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${ns}
  labels: null
  annotations: ~
data: null
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: ${ns}
  labels:
    app: web
spec:
  type: ClusterIP
  clusterIP: null
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: 8080
    nodePort: null
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
spec:
  replicas: null
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
      annotations: null
    spec:
      nodeSelector: null
      tolerations: null
      containers:
      - name: web
        image: nginx:1.27
        args: null
        env: null
        resources:
          limits: null
        ports:
        - containerPort: 8080
          hostPort: null
`;

const statefulSet = (ns: string): string => `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: ${ns}
spec:
  serviceName: db
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: db
        image: postgres:16
        volumeMounts:
        - name: data
          mountPath: /var/lib/postgresql/data
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`;

const pod = (name: string, ns: string, nodeName?: string): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'app', image: 'busybox' }] } });

for (const version of VERSIONS) {
  t.test(`kubectl ${version}`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    const k = kubectlFor(t, version, server);
    const ns = `first-${version.replace('.', '-')}`;
    await k.ok(['create', '-f', '-'], namespace(ns));

    t.test('apply a manifest full of nulls: created, nulls neither stored nor owned', async (t) => {
      const out = await k.ok(['apply', '-f', '-'], chartWithNulls(ns));
      t.match(out, 'configmap/settings created');
      t.match(out, 'service/web created');
      t.match(out, 'deployment.apps/web created');
      const cm = await k.json(['get', 'configmap', 'settings', '-n', ns]);
      t.notOk('data' in cm);
      t.notOk('labels' in (cm.metadata as object));
      const svc = await k.json<{ spec: { ports: object[] } }>(['get', 'service', 'web', '-n', ns]);
      t.same(svc.spec.ports, [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }]);
      const d = await k.json<{ spec: { replicas: number; template: { spec: { containers: Array<Record<string, unknown>> } } }; metadata: { managedFields?: unknown[] } }>(['get', 'deployment', 'web', '-n', ns]);
      t.equal(d.spec.replicas, 1, 'replicas: null is defaulted like an absent one');
      const c = d.spec.template.spec.containers[0];
      t.notOk('env' in c);
      t.notOk('args' in c);
      t.same(c.ports, [{ containerPort: 8080, protocol: 'TCP' }]);
      t.notMatch(JSON.stringify(d.metadata.managedFields ?? []), /f:env|f:hostPort|f:nodeSelector|f:tolerations/);
      // applying the same manifest again changes nothing (kubectl still says "configured": its patch
      // carries the nulls, as against kube)
      const before = await k.json<{ metadata: { resourceVersion: string } }>(['get', 'service', 'web', '-n', ns]);
      await k.ok(['apply', '-f', '-'], chartWithNulls(ns));
      const after = await k.json<{ metadata: { resourceVersion: string }; spec: { ports: object[] } }>(['get', 'service', 'web', '-n', ns]);
      t.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'no write');
      t.same(after.spec.ports, svc.spec.ports);
    });

    if (version === '1.32') {
      t.test('server-side apply of the same manifest', async (t) => {
        const sns = `${ns}-ssa`;
        await k.ok(['create', '-f', '-'], namespace(sns));
        const out = await k.ok(['apply', '--server-side', '-f', '-'], chartWithNulls(sns));
        t.match(out, 'service/web serverside-applied');
        const svc = await k.json<{ spec: { ports: object[] }; metadata: { managedFields: unknown[] } }>(['get', 'service', 'web', '-n', sns]);
        t.same(svc.spec.ports, [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }]);
        t.notMatch(JSON.stringify(svc.metadata.managedFields), /nodePort|clusterIP/);
      });
    }

    t.test('a StatefulSet mounting its volumeClaimTemplate is created', async (t) => {
      t.match(await k.ok(['apply', '-f', '-'], statefulSet(ns)), 'statefulset.apps/db created');
    });

    t.test('delete of a pod no node runs returns at once and the pod is gone', async (t) => {
      await k.ok(['create', '-f', '-'], pod('pending', ns));
      const started = Date.now();
      const r = await k.run(['delete', 'pod', 'pending', '-n', ns], undefined, 30_000);
      t.equal(r.code, 0, r.stderr);
      t.match(r.stdout, 'pod "pending" deleted');
      t.ok(Date.now() - started < 20_000, 'no wait for a node agent that does not exist');
      const gone = await k.run(['get', 'pod', 'pending', '-n', ns]);
      t.match(gone.stderr, /NotFound/);
    });

    // kube looks the pod's node up to reach its agent: a node that does not exist is kube's NotFound
    // naming the node (not the pod), at once
    t.test('logs and exec of a pod bound to a missing node name that node, and do not hang', async (t) => {
      await k.ok(['create', '-f', '-'], pod('bound', ns, 'node-1'));
      const logs = await k.run(['logs', 'bound', '-n', ns], undefined, 40_000);
      t.not(logs.code, 0);
      t.match(logs.stderr, 'Error from server (NotFound): nodes "node-1" not found');
      const exec = await k.run(['exec', 'bound', '-n', ns, '--', 'ls'], undefined, 40_000);
      t.not(exec.code, 0);
      t.notMatch(exec.stderr, /killed after/, 'no hang');
      t.match(exec.stderr, 'nodes "node-1" not found');
      const wrong = await k.run(['logs', 'bound', '-n', ns, '-c', 'nope']);
      t.match(wrong.stderr, 'container nope is not valid for pod bound');
      const missing = await k.run(['logs', 'nope', '-n', ns]);
      t.match(missing.stderr, 'pods "nope" not found');
    });
  });
}

t.test('the client library path (HTTP JSON) decodes nulls as kube does', { skip: missingKubectl('1.32') ?? false }, async (t) => {
  const server = await startApiServer(t);
  const headers = { 'Content-Type': 'application/json' };
  const body = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'api', labels: null, annotations: null },
    spec: { type: 'ClusterIP', selector: { app: 'api' }, ports: [{ port: 443, nodePort: null, targetPort: null }] },
  });
  const created = await server.request('POST', '/api/v1/namespaces/default/services', body, headers);
  t.equal(created.status, 201, created.body);
  const svc = JSON.parse(created.body) as { metadata: object; spec: { ports: Array<Record<string, unknown>> } };
  t.notOk('labels' in svc.metadata);
  t.same(svc.spec.ports, [{ port: 443, protocol: 'TCP', targetPort: 443 }]);
  const cm = await server.request('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: null }), headers);
  t.equal(cm.status, 201, cm.body);
  t.notOk('data' in JSON.parse(cm.body));
});
