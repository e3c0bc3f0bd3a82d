/**
 * The networking, discovery, node, scheduling and storage kinds through a real registry and store:
 * objects written in one version and read in every other (conversion through the storage version),
 * the system PriorityClasses created at start and refused deletion, VolumeAttachment's status.
 */
import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { builtinBootstrapObjects } from '../../../src/api/kinds/bootstrap';
import type { Fixture } from '../../helpers/registry-fixture';
import { makeFixture, storeKinds, write } from '../../helpers/registry-fixture';
import { rejects } from '../../helpers/registry-assert';

const at = (f: Fixture, group: string, version: string, resource: string, namespace?: string, name?: string) => ({
  kind: f.kind(resource, group, version),
  ...(namespace ? { namespace } : {}),
  ...(name ? { name } : {}),
});

for (const backend of storeKinds()) {
  t.test(`networking and storage kinds (${backend})`, async (t) => {
    // the server's bootstrap objects, as src/server/apiserver.ts wires them
    const f = await makeFixture(backend, { bootstrapObjects: builtinBootstrapObjects });
    t.teardown(() => f.close());

    t.test('the system PriorityClasses exist from the start, in every version, and cannot be deleted', async (t) => {
      for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
        const list = await f.registry.list(at(f, 'scheduling.k8s.io', version, 'priorityclasses'), {});
        t.same(
          list.items.map((pc) => [pc.apiVersion, pc.metadata!.name, pc.value, pc.preemptionPolicy]),
          [
            [`scheduling.k8s.io/${version}`, 'system-cluster-critical', 2000000000, 'PreemptLowerPriority'],
            [`scheduling.k8s.io/${version}`, 'system-node-critical', 2000001000, 'PreemptLowerPriority'],
          ],
          version,
        );
      }
      const status = await rejects(
        t,
        f.registry.delete(at(f, 'scheduling.k8s.io', 'v1', 'priorityclasses', undefined, 'system-node-critical'), write),
        403,
        'Forbidden',
        'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted',
      );
      t.same(status?.details, { name: 'system-node-critical', group: 'scheduling.k8s.io', kind: 'priorityclasses' });
      await rejects(t, f.registry.delete(at(f, 'scheduling.k8s.io', 'v1beta1', 'priorityclasses', undefined, 'system-cluster-critical'), { dryRun: true }), 403, 'Forbidden');
      await f.registry.create(at(f, 'scheduling.k8s.io', 'v1', 'priorityclasses'), { metadata: { name: 'batch' }, value: 10 }, write);
      const res = await f.registry.delete(at(f, 'scheduling.k8s.io', 'v1', 'priorityclasses', undefined, 'batch'), write);
      t.equal(res.code, 200, 'user classes may be deleted');
      await rejects(t, f.registry.create(at(f, 'scheduling.k8s.io', 'v1', 'priorityclasses'), { metadata: { name: 'system-x' }, value: 10 }, write), 422, 'Invalid');
      await f.registry.bootstrap();
      t.equal((await f.registry.get(at(f, 'scheduling.k8s.io', 'v1', 'priorityclasses', undefined, 'system-node-critical'), {})).value, 2000001000);
    });

    t.test('Ingress: written through extensions/v1beta1, read and updated through v1 and networking v1beta1', async (t) => {
      const beta = {
        metadata: { name: 'shop', namespace: 'default' },
        spec: {
          backend: { serviceName: 'fallback', servicePort: 80 },
          rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/', backend: { serviceName: 'web', servicePort: 'http' } }] } }],
        },
      };
      const created = await f.registry.create(at(f, 'extensions', 'v1beta1', 'ingresses', 'default'), beta, write);
      t.equal(created.object.apiVersion, 'extensions/v1beta1');
      t.same((created.object.spec as any).rules[0].http.paths[0], { path: '/', pathType: 'ImplementationSpecific', backend: { serviceName: 'web', servicePort: 'http' } });
      t.same(created.object.status, { loadBalancer: {} });
      t.equal(created.object.metadata!.generation, 1);

      const v1 = await f.registry.get(at(f, 'networking.k8s.io', 'v1', 'ingresses', 'default', 'shop'), {});
      t.same(v1.spec, {
        defaultBackend: { service: { name: 'fallback', port: { number: 80 } } },
        rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/', pathType: 'ImplementationSpecific', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }],
      });
      (v1.spec as any).ingressClassName = 'nginx';
      (v1.spec as any).rules[0].http.paths.push({ path: '/static', pathType: 'Prefix', backend: { resource: { kind: 'Bucket', name: 'assets', apiGroup: 'k8s.example.com' } } });
      const updated = await f.registry.update(at(f, 'networking.k8s.io', 'v1', 'ingresses', 'default', 'shop'), v1, write);
      t.equal(updated.object.metadata!.generation, 2);

      const nbeta = await f.registry.get(at(f, 'networking.k8s.io', 'v1beta1', 'ingresses', 'default', 'shop'), {});
      t.same(nbeta.spec, {
        ingressClassName: 'nginx',
        backend: { serviceName: 'fallback', servicePort: 80 },
        rules: [
          {
            host: 'shop.example.com',
            http: {
              paths: [
                { path: '/', pathType: 'ImplementationSpecific', backend: { serviceName: 'web', servicePort: 'http' } },
                { path: '/static', pathType: 'Prefix', backend: { servicePort: 0, resource: { kind: 'Bucket', name: 'assets', apiGroup: 'k8s.example.com' } } },
              ],
            },
          },
        ],
      });
      // an update through a beta version that changes nothing else keeps the v1-only details
      await f.registry.update(at(f, 'networking.k8s.io', 'v1beta1', 'ingresses', 'default', 'shop'), nbeta, write);
      t.same((await f.registry.get(at(f, 'networking.k8s.io', 'v1', 'ingresses', 'default', 'shop'), {})).spec, updated.object.spec);

      for (const [group, version] of [['networking.k8s.io', 'v1'], ['networking.k8s.io', 'v1beta1'], ['extensions', 'v1beta1']]) {
        const list = await f.registry.list(at(f, group, version, 'ingresses', 'default'), {});
        t.same(list.items.map((i) => [i.apiVersion, i.metadata!.name]), [[`${group}/${version}`, 'shop']]);
      }
      // status through the subresource, in v1 form, visible in the beta form
      const current = await f.registry.get(at(f, 'networking.k8s.io', 'v1', 'ingresses', 'default', 'shop'), {});
      await f.registry.updateStatus(at(f, 'networking.k8s.io', 'v1', 'ingresses', 'default', 'shop'), { ...current, status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } } }, write);
      t.same((await f.registry.get(at(f, 'extensions', 'v1beta1', 'ingresses', 'default', 'shop'), {})).status, { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } });
      // v1 requires pathType
      await rejects(
        t,
        f.registry.create(at(f, 'networking.k8s.io', 'v1', 'ingresses', 'default'), { metadata: { name: 'x' }, spec: { rules: [{ http: { paths: [{ path: '/', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] } }, write),
        422,
        'Invalid',
        'Ingress.networking.k8s.io "x" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
      );
    });

    t.test('EndpointSlice: v1beta1 topology stored as v1 zone, nodeName and deprecatedTopology', async (t) => {
      const beta = {
        metadata: { name: 'web-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'n1', topology: { 'kubernetes.io/hostname': 'n1', 'topology.kubernetes.io/zone': 'z1', rack: 'r1' } }],
        ports: [{ port: 80 }],
      };
      await f.registry.create(at(f, 'discovery.k8s.io', 'v1beta1', 'endpointslices', 'default'), beta, write);
      const v1 = await f.registry.get(at(f, 'discovery.k8s.io', 'v1', 'endpointslices', 'default', 'web-1'), {});
      t.same(v1.endpoints, [{ addresses: ['10.0.0.1'], nodeName: 'n1', zone: 'z1', deprecatedTopology: { rack: 'r1' } }]);
      t.same(v1.ports, [{ port: 80, name: '', protocol: 'TCP' }]);
      const back = await f.registry.get(at(f, 'discovery.k8s.io', 'v1beta1', 'endpointslices', 'default', 'web-1'), {});
      t.same(back.endpoints, beta.endpoints);
      // a v1 write that changes the endpoints drops deprecatedTopology
      (v1.endpoints as any)[0].addresses = ['10.0.0.2'];
      const updated = await f.registry.update(at(f, 'discovery.k8s.io', 'v1', 'endpointslices', 'default', 'web-1'), v1, write);
      t.same(updated.object.endpoints, [{ addresses: ['10.0.0.2'], nodeName: 'n1', zone: 'z1' }]);
      t.equal(updated.object.metadata!.generation, 2);
      await rejects(t, f.registry.update(at(f, 'discovery.k8s.io', 'v1', 'endpointslices', 'default', 'web-1'), { ...updated.object, addressType: 'IPv6', endpoints: [] }, write), 422, 'Invalid', /addressType: Invalid value: "IPv6": field is immutable/);
    });

    t.test('RuntimeClass: v1alpha1 spec form stored as v1', async (t) => {
      await f.registry.create(at(f, 'node.k8s.io', 'v1alpha1', 'runtimeclasses'), { metadata: { name: 'gvisor' }, spec: { runtimeHandler: 'runsc', overhead: { podFixed: { cpu: '100m' } } } }, write);
      const v1 = await f.registry.get(at(f, 'node.k8s.io', 'v1', 'runtimeclasses', undefined, 'gvisor'), {});
      t.same([v1.handler, v1.overhead, v1.spec], ['runsc', { podFixed: { cpu: '100m' } }, undefined]);
      v1.handler = 'kata';
      await rejects(t, f.registry.update(at(f, 'node.k8s.io', 'v1', 'runtimeclasses', undefined, 'gvisor'), v1, write), 422, 'Invalid', /handler: Invalid value: "kata": field is immutable/);
      const alpha = await f.registry.get(at(f, 'node.k8s.io', 'v1alpha1', 'runtimeclasses', undefined, 'gvisor'), {});
      t.same(alpha.spec, { runtimeHandler: 'runsc', overhead: { podFixed: { cpu: '100m' } } });
    });

    t.test('storage.k8s.io: defaults through any version; VolumeAttachment status only through /status in v1', async (t) => {
      await f.registry.create(at(f, 'storage.k8s.io', 'v1beta1', 'storageclasses'), { metadata: { name: 'fast' }, provisioner: 'ebs.csi.aws.com' }, write);
      const sc = await f.registry.get(at(f, 'storage.k8s.io', 'v1', 'storageclasses', undefined, 'fast'), {});
      t.same([sc.reclaimPolicy, sc.volumeBindingMode], ['Delete', 'Immediate']);
      await f.registry.create(at(f, 'storage.k8s.io', 'v1alpha1', 'csistoragecapacities', 'kube-system'), { metadata: { name: 'cap' }, storageClassName: 'fast', capacity: '10Gi' }, write);
      t.equal((await f.registry.get(at(f, 'storage.k8s.io', 'v1', 'csistoragecapacities', 'kube-system', 'cap'), {})).capacity, '10Gi');

      const va: KubeObject = { metadata: { name: 'csi-1' }, spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } } };
      const created = await f.registry.create(at(f, 'storage.k8s.io', 'v1', 'volumeattachments'), va, write);
      t.same(created.object.status, { attached: false });
      const attached = await f.registry.updateStatus(at(f, 'storage.k8s.io', 'v1', 'volumeattachments', undefined, 'csi-1'), { ...created.object, status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdb' } } }, write);
      t.same(attached.object.status, { attached: true, attachmentMetadata: { devicePath: '/dev/xvdb' } });
      const main = await f.registry.update(at(f, 'storage.k8s.io', 'v1', 'volumeattachments', undefined, 'csi-1'), { ...attached.object, status: { attached: false } }, write);
      t.same(main.object.status, attached.object.status, 'the main resource keeps the status in v1');
      const viaBeta = await f.registry.get(at(f, 'storage.k8s.io', 'v1beta1', 'volumeattachments', undefined, 'csi-1'), {});
      const betaWrite = await f.registry.update(at(f, 'storage.k8s.io', 'v1beta1', 'volumeattachments', undefined, 'csi-1'), { ...viaBeta, status: { attached: false } }, write);
      t.same(betaWrite.object.status, { attached: false }, 'v1beta1 writes status through the main resource');
      await rejects(t, f.registry.update(at(f, 'storage.k8s.io', 'v1', 'volumeattachments', undefined, 'csi-1'), { ...betaWrite.object, apiVersion: 'storage.k8s.io/v1', spec: { ...(betaWrite.object.spec as object), nodeName: 'node-2' } }, write), 422, 'Invalid', /spec: Invalid value: .*field is immutable/);

      await f.registry.create(at(f, 'storage.k8s.io', 'v1beta1', 'csidrivers'), { metadata: { name: 'ebs.csi.aws.com' }, spec: {} }, write);
      const driver = await f.registry.get(at(f, 'storage.k8s.io', 'v1', 'csidrivers', undefined, 'ebs.csi.aws.com'), {});
      t.same((driver.spec as any).volumeLifecycleModes, ['Persistent']);
      t.equal((driver.spec as any).attachRequired, true);
    });
  });
}
