/**
 * CertificateSigningRequests through the registry: the approval subresource changes only the
 * conditions, /status only the status and not Approved/Denied, the main resource neither.
 */
import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { b64, rsaCsr, selfSignedCert } from '../../helpers/csr';
import { rejects } from '../../helpers/registry-assert';
import { makeFixture, storeKinds, write } from '../../helpers/registry-fixture';

const GROUP = 'certificates.k8s.io';

for (const backend of storeKinds()) {
  t.test(`CSR approval and status (${backend})`, async (t) => {
    const f = await makeFixture(backend);
    t.teardown(() => f.close());
    const target = (name?: string, version = 'v1') => ({ kind: f.kind('certificatesigningrequests', GROUP, version), name });
    const created = (
      await f.registry.create(
        target(),
        {
          apiVersion: `${GROUP}/v1`,
          kind: 'CertificateSigningRequest',
          metadata: { name: 'jane' },
          spec: { request: b64(rsaCsr({ commonName: 'jane' })), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
          status: { conditions: [{ type: 'Approved', status: 'True' }] },
        },
        write,
      )
    ).object;
    t.same(created.status, {}, 'no pre-approved requests');

    const approval = { ...created, spec: { ...(created.spec as object), signerName: 'example.com/changed' }, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'ok' }] } };
    const approved = (await f.registry.updateSubresource(target('jane'), 'approval', approval, write)).object;
    const cond = (approved.status as { conditions: Array<Record<string, string>> }).conditions[0];
    t.same([cond.type, cond.status, cond.reason], ['Approved', 'True', 'KubectlApprove']);
    t.ok(cond.lastUpdateTime, 'timestamps filled');
    t.equal((approved.spec as { signerName: string }).signerName, 'kubernetes.io/kube-apiserver-client', 'approval writes only conditions');

    // the approval is visible in v1beta1 too
    const beta = await f.registry.get(target('jane', 'v1beta1'), {});
    t.equal(beta.apiVersion, `${GROUP}/v1beta1`);
    t.same((beta.status as { conditions: unknown[] }).conditions.length, 1);

    // the main resource keeps status; /status may issue the certificate but not undo the approval
    const main = (await f.registry.update(target('jane'), { ...approved, status: {} } as KubeObject, write)).object;
    t.same(main.status, approved.status);
    await rejects(t, f.registry.updateStatus(target('jane'), { ...approved, status: { conditions: [] } }, write), 422, 'Invalid', /updates may not remove a condition of type "Approved"/);
    const issued = (await f.registry.updateStatus(target('jane'), { ...approved, status: { ...(approved.status as object), certificate: b64(selfSignedCert()) } }, write)).object;
    t.ok((issued.status as { certificate: string }).certificate);
    const denied = { ...issued, status: { ...(issued.status as object), conditions: [cond, { type: 'Denied', status: 'True' }] } };
    await rejects(t, f.registry.updateSubresource(target('jane'), 'approval', denied, write), 422, 'Invalid', /Approved and Denied conditions are mutually exclusive/);
  });
}

t.test('the requester of a CSR is the user who created it, whatever the body claims', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const kind = f.kind('certificatesigningrequests', GROUP, 'v1');
  const body = (name: string): KubeObject => ({
    apiVersion: `${GROUP}/v1`,
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: b64(rsaCsr({ commonName: 'system:node:n1', organizations: ['system:nodes'] })),
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
      usages: ['digital signature', 'key encipherment', 'client auth'],
      // a claim the API server must not believe
      username: 'system:node:n1',
      groups: ['system:nodes'],
      uid: 'forged',
    },
  });
  const user = { name: 'mallory', uid: 'u-1', groups: ['system:authenticated'], extra: { scope: ['x'] } };
  const spec = (await f.registry.create({ kind }, body('by-mallory'), { ...write, user })).object.spec as Record<string, unknown>;
  t.same([spec.username, spec.uid, spec.groups, spec.extra], ['mallory', 'u-1', ['system:authenticated'], { scope: ['x'] }]);
  const anonymous = (await f.registry.create({ kind }, body('in-process'), write)).object.spec as Record<string, unknown>;
  t.same([anonymous.username, anonymous.groups, anonymous.uid], [undefined, undefined, undefined], 'without a requester the fields are empty, as in kube');
});
