import t from 'tap';
import { execFileSync } from 'node:child_process';
import type { KubeObject } from '../../src/api/kind';
import type { Authorizer, AuthorizationAttributes } from '../../src/api/reviews/authorizer';
import { b64, rsaCsr, selfSignedCert } from '../helpers/csr';
import { rejects } from '../helpers/registry-assert';
import { admissionFixture } from './admission-fixture';
import { requestOrganizations } from '../../src/admission/plugins/certificates';

const GROUP = 'certificates.k8s.io';
const alice = { name: 'alice', groups: ['system:authenticated'] };
const root = { name: 'root', groups: ['system:masters'] };

/** allows system:masters everything; others only `approve` of example.com/* */
class TestAuthorizer implements Authorizer {
  readonly asked: AuthorizationAttributes[] = [];
  async authorize(a: AuthorizationAttributes) {
    this.asked.push(a);
    if (a.user?.groups.includes('system:masters')) return { allowed: true };
    return { allowed: a.verb === 'approve' && a.name === 'example.com/*' };
  }
}

const csr = (name: string, signerName: string, organizations?: string[]): KubeObject => ({
  apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
  spec: { request: b64(rsaCsr({ commonName: name, organizations })), signerName, usages: ['client auth'] },
});

t.test('CertificateSubjectRestriction: no system:masters through the kube-apiserver-client signer', async (t) => {
  const f = await admissionFixture(['CertificateSubjectRestriction']);
  t.teardown(() => f.close());
  const target = { kind: f.kind('certificatesigningrequests', GROUP) };
  await rejects(t, f.registry.create(target, csr('evil', 'kubernetes.io/kube-apiserver-client', ['system:masters']), { dryRun: false, user: root }), 403, 'Forbidden',
    'certificatesigningrequests.certificates.k8s.io "evil" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
  t.ok((await f.registry.create(target, csr('fine', 'kubernetes.io/kube-apiserver-client', ['devs']), { dryRun: false, user: root })).object);
  t.ok((await f.registry.create(target, csr('other', 'example.com/x', ['system:masters']), { dryRun: false, user: root })).object, 'other signers are not restricted');
});

t.test('the subject organizations of an EC request are read too', async (t) => {
  const pem = execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=x/O=system:masters/O=b'], { encoding: 'utf8' });
  t.same(requestOrganizations(pem), ['system:masters', 'b']);
  t.equal(requestOrganizations('garbage'), undefined);
});

t.test('CertificateApproval and CertificateSigning ask the authorizer about the signer', async (t) => {
  const authorizer = new TestAuthorizer();
  const f = await admissionFixture(['CertificateApproval', 'CertificateSigning'], { authorizer });
  t.teardown(() => f.close());
  const kind = f.kind('certificatesigningrequests', GROUP);
  for (const [name, signer] of [['a', 'example.com/one'], ['b', 'kubernetes.io/kube-apiserver-client']]) {
    await f.registry.create({ kind }, csr(name, signer), { dryRun: false, user: root });
  }
  const approve = async (name: string) => {
    const current = await f.registry.get({ kind, name }, {});
    return f.registry.updateSubresource({ kind, name }, 'approval', { ...current, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R', message: 'ok' }] } }, { dryRun: false, user: alice });
  };
  t.ok((await approve('a')).object, 'example.com/* lets alice approve');
  t.match(authorizer.asked.at(-1), { verb: 'approve', apiGroup: GROUP, resource: 'signers', name: 'example.com/*' });
  await rejects(t, approve('b'), 403, 'Forbidden',
    'certificatesigningrequests.certificates.k8s.io "b" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"');
  await rejects(t, f.registry.patchStatus({ kind, name: 'a' }, 'merge', JSON.stringify({ status: { certificate: b64(selfSignedCert()) } }), { dryRun: false, user: alice }), 403, 'Forbidden',
    'certificatesigningrequests.certificates.k8s.io "a" is forbidden: user not permitted to sign requests with signerName "example.com/one"');
});
