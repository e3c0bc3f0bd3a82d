/**
 * A node agent's identity with kubectl 1.32 (client certificate CN=system:node:n1, O=system:nodes)
 * against --authorization-mode=Node,RBAC and NodeRestriction: it reads its own Node, the pods bound
 * to it and the secrets they use, nothing else; it cannot give itself node-restriction labels.
 * Privileged pods are refused without --allow-privileged, and exec into a host-PID pod is refused
 * by DenyEscalatingExec.
 */
import path from 'node:path';
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer, tempDir, waitFor } from './harness';
import { makeCert } from '../helpers/test-pki';

const manifests = `
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
---
apiVersion: v1
kind: Secret
metadata: {name: web-secret, namespace: default}
stringData: {p: one}
---
apiVersion: v1
kind: Secret
metadata: {name: other-secret, namespace: default}
stringData: {p: two}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  nodeName: n1
  containers:
  - name: app
    image: nginx
    env: [{name: P, valueFrom: {secretKeyRef: {name: web-secret, key: p}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: default}
spec:
  nodeName: n2
  containers:
  - name: app
    image: nginx
    env: [{name: P, valueFrom: {secretKeyRef: {name: other-secret, key: p}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: host-pid, namespace: default}
spec:
  nodeName: n1
  hostPID: true
  containers: [{name: app, image: nginx}]
`;

const privileged = `
apiVersion: v1
kind: Pod
metadata: {name: priv, namespace: default}
spec:
  containers: [{name: app, image: nginx, securityContext: {privileged: true}}]
`;

t.test('a node identity under Node,RBAC and NodeRestriction', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const server = await startApiServer(t, { args: ['--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction,DenyEscalatingExec'] });
  const admin = kubectlFor(t, '1.32', server);
  await admin.ok(['apply', '-f', '-'], manifests);

  // a client certificate from the server's generated client CA
  const pki = path.join(server.dataDir, 'pki');
  const ca = { cert: '', key: '', certFile: path.join(pki, 'ca.crt'), keyFile: path.join(pki, 'ca.key') };
  const cert = makeCert(tempDir(t, 'node'), 'n1', ca, { commonName: 'system:node:n1', organization: 'system:nodes', usage: 'client' });
  const node = kubectlFor(t, '1.32', server, { cert: cert.cert, key: cert.key });

  t.match(await node.ok(['auth', 'whoami']), /system:node:n1/);
  t.match(await node.ok(['get', 'node', 'n1', '-o', 'name']), 'node/n1');
  // the graph follows the pods through an informer: wait until it has seen them
  await waitFor('the node graph', async () => (await node.run(['get', 'pod', 'web', '-o', 'name'])).code === 0);
  t.match(await node.ok(['get', 'secret', 'web-secret', '-o', 'jsonpath={.data.p}']), Buffer.from('one').toString('base64'));
  t.match(await node.ok(['get', 'pods', '--field-selector', 'spec.nodeName=n1', '-o', 'name']), /pod\/web/);

  const otherSecret = await node.run(['get', 'secret', 'other-secret']);
  t.not(otherSecret.code, 0);
  t.match(otherSecret.stderr, /Error from server \(Forbidden\): secrets "other-secret" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'n1' and this object/);
  t.match((await node.run(['get', 'pod', 'other'])).stderr, /\(Forbidden\)/);
  const otherNode = await node.run(['get', 'node', 'n2']);
  t.match(otherNode.stderr, /nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object/);
  t.match((await node.run(['get', 'nodes'])).stderr, /\(Forbidden\)/, 'no list of all nodes');

  const restricted = await node.run(['label', 'node', 'n1', 'node-restriction.kubernetes.io/x=y']);
  t.not(restricted.code, 0);
  t.match(restricted.stderr, /nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io\/x/);
  t.match(await node.ok(['label', 'node', 'n1', 'example.com/pool=a']), /labeled/, 'labels outside the restricted namespaces are its own');
  t.match((await node.run(['label', 'node', 'n2', 'example.com/pool=a'])).stderr, /\(Forbidden\)/);
  t.match((await node.run(['delete', 'pod', 'other'])).stderr, /pods "other" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself/);

  const priv = await admin.run(['apply', '-f', '-'], privileged);
  t.not(priv.code, 0);
  t.match(priv.stderr, /spec.containers\[0\].securityContext.privileged: Forbidden: disallowed by cluster policy/);

  const exec = await admin.run(['exec', 'host-pid', '--', 'true']);
  t.not(exec.code, 0);
  t.match(exec.stderr, /cannot exec into or attach to a container using host pid/);
});
