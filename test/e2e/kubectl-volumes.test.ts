/**
 * kubectl 1.32 with the volume controllers: an applied volume and claim are bound (`kubectl get
 * pvc` shows it), and `kubectl delete pvc` of a claim a pod uses leaves it Terminating until the
 * pod goes (the test plays the node: the pod is scheduled by hand and force-deleted).
 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer, waitFor } from './harness';
import { startControllers } from '../helpers/controllers';

const manifests = `
apiVersion: v1
kind: PersistentVolume
metadata:
  name: task-pv
spec:
  storageClassName: manual
  capacity:
    storage: 2Gi
  accessModes: [ReadWriteOnce]
  hostPath:
    path: /tmp/ballast-kubectl-volumes
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: task-claim
  namespace: default
spec:
  storageClassName: manual
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`;

const pod = `
apiVersion: v1
kind: Pod
metadata:
  name: task-pod
  namespace: default
spec:
  nodeName: node-1
  containers:
  - name: c
    image: busybox
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: task-claim
`;

t.test('kubectl 1.32: volumes and claims with the volume controllers', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  startControllers(t, server, ['persistentvolume-binder', 'pv-protection', 'pvc-protection']);
  const k = kubectlFor(t, '1.32', server);

  t.match(await k.ok(['apply', '-f', '-'], manifests), /persistentvolume\/task-pv created\npersistentvolumeclaim\/task-claim created/);
  const table = await waitFor('the claim Bound', async () => {
    const out = await k.ok(['get', 'pvc', 'task-claim']);
    return /\sBound\s/.test(out) && out;
  });
  t.match(table, /^task-claim\s+Bound\s+task-pv\s+2Gi\s+RWO\s+manual\s+<unset>\s+\S+$/m);
  t.match(await k.ok(['get', 'pv', 'task-pv']), /^task-pv\s+2Gi\s+RWO\s+Retain\s+Bound\s+default\/task-claim\s+manual\s+/m);

  t.match(await k.ok(['apply', '-f', '-'], pod), 'pod/task-pod created');
  // kubectl would wait for the claim to go: it cannot while the pod uses it
  t.match(await k.ok(['delete', 'pvc', 'task-claim', '--wait=false']), 'persistentvolumeclaim "task-claim" deleted');
  t.match(await k.ok(['get', 'pvc', 'task-claim']), /^task-claim\s+Terminating\s+task-pv\s+/m);
  const finalizers = await k.ok(['get', 'pvc', 'task-claim', '-o', 'jsonpath={.metadata.finalizers}']);
  t.equal(finalizers, '["kubernetes.io/pvc-protection"]');

  t.match(await k.ok(['delete', 'pod', 'task-pod', '--grace-period=0', '--force']), /pod "task-pod" force deleted/);
  await waitFor('the claim gone', async () => (await k.run(['get', 'pvc', 'task-claim'])).stderr.includes('NotFound'));
  const pv = await waitFor('the volume Released', async () => {
    const out = await k.ok(['get', 'pv', 'task-pv']);
    return /\sReleased\s/.test(out) && out;
  });
  t.match(pv, /^task-pv\s+2Gi\s+RWO\s+Retain\s+Released\s+default\/task-claim\s+/m);
});
