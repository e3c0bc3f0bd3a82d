import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { checkSignature, parseCSR } from '../../../src/api/kinds/certificates/csr-request';
import { b64, ecdsaCsr, rsaCsr, selfSignedCert } from '../../helpers/csr';
import { create, fields, kind } from './helpers';

const GROUP = 'certificates.k8s.io';

const csr = (version: string, spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject => ({
  apiVersion: `${GROUP}/${version}`,
  kind: 'CertificateSigningRequest',
  metadata: { name: 'c' },
  spec,
  ...(status ? { status } : {}),
});

const clientSpec = (extra: Record<string, unknown> = {}) => ({
  request: b64(rsaCsr({ commonName: 'jane', organizations: ['devs'] })),
  signerName: 'kubernetes.io/kube-apiserver-client',
  usages: ['client auth'],
  ...extra,
});

t.test('requests are PEM CSRs signed by their own key (RSA and ECDSA)', async (t) => {
  const ec = parseCSR(Buffer.from(ecdsaCsr('system:node:n1', 'system:nodes')));
  t.ok('csr' in ec && checkSignature(ec.csr) === '', 'ECDSA P-256 verifies');
  const rsa = parseCSR(Buffer.from(rsaCsr({ commonName: 'x', dnsNames: ['a.example.com'], ips: ['10.0.0.1'] })));
  t.ok('csr' in rsa && checkSignature(rsa.csr) === '', 'RSA verifies');
  if ('csr' in rsa) t.same([rsa.csr.commonName, rsa.csr.dnsNames, rsa.csr.ipAddresses], ['x', ['a.example.com'], ['10.0.0.1']]);

  const v1 = kind(GROUP, 'v1', 'CertificateSigningRequest');
  t.same(create(v1, csr('v1', clientSpec())), []);
  const bad = create(v1, csr('v1', clientSpec({ request: b64('hello') })));
  t.same(bad, [{ reason: 'FieldValueInvalid', message: 'Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f}: PEM block type must be CERTIFICATE REQUEST', field: 'spec.request' }]);
  // flip a byte of the signature: the request no longer verifies
  const pem = rsaCsr({ commonName: 'jane' });
  const body = Buffer.from(pem.split('\n').filter((l) => !l.startsWith('-----')).join(''), 'base64');
  body[body.length - 5] ^= 0xff;
  const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${body.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
  t.match(create(v1, csr('v1', clientSpec({ request: b64(tampered) })))[0].message, /: crypto\/rsa: verification error$/);
});

t.test('signer names, usages, expiration', async (t) => {
  const v1 = kind(GROUP, 'v1', 'CertificateSigningRequest');
  const check = (extra: Record<string, unknown>) => create(v1, csr('v1', clientSpec(extra)));
  t.same(check({ signerName: 'example.com' }), [
    { reason: 'FieldValueInvalid', message: "Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'", field: 'spec.signerName' },
  ]);
  t.same(check({ signerName: 'example/signer' })[0].message, 'Invalid value: "example": should be a domain with at least two segments separated by dots');
  t.same(check({ signerName: 'Example.com/signer' })[0].message.startsWith('Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label'), true);
  t.same(check({ signerName: 'kubernetes.io/legacy-unknown' }), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version', field: 'spec.signerName' },
  ]);
  t.same(fields(check({ signerName: '' })), ['spec.signerName']);
  t.same(fields(check({ usages: [] })), ['spec.usages']);
  t.same(fields(check({ usages: ['client auth', 'flying', 'client auth'] })), ['spec.usages[1]', 'spec.usages[2]']);
  t.same(check({ expirationSeconds: 599 }), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)', field: 'spec.expirationSeconds' },
  ]);
  const beta = kind(GROUP, 'v1beta1', 'CertificateSigningRequest');
  t.same(create(beta, csr('v1beta1', clientSpec({ signerName: 'kubernetes.io/legacy-unknown', usages: ['flying', 'flying'] }))), [], 'v1beta1 tolerates these');
});

t.test('v1beta1 defaults usages and the signer from the request, as kube 1.20 did', async (t) => {
  const beta = kind(GROUP, 'v1beta1', 'CertificateSigningRequest');
  const signer = (request: string, usages?: string[]) => {
    const obj = csr('v1beta1', { request: b64(request), ...(usages ? { usages } : {}) });
    beta.strategy.defaults(obj);
    return [(obj.spec as Record<string, unknown>).signerName, (obj.spec as Record<string, unknown>).usages];
  };
  t.same(signer(rsaCsr({ commonName: 'jane' })), ['kubernetes.io/legacy-unknown', ['digital signature', 'key encipherment']]);
  t.same(signer(rsaCsr({ commonName: 'system:node:n1', organizations: ['system:nodes'] }), ['digital signature', 'key encipherment', 'client auth'])[0], 'kubernetes.io/kube-apiserver-client-kubelet');
  t.same(signer(rsaCsr({ commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: ['n1'] }), ['digital signature', 'key encipherment', 'server auth'])[0], 'kubernetes.io/kubelet-serving');
  t.same(signer(rsaCsr({ commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: ['n1'] }), ['digital signature', 'key encipherment', 'client auth'])[0], 'kubernetes.io/legacy-unknown', 'client CSRs carry no SANs');
  t.same(signer('garbage')[0], 'kubernetes.io/legacy-unknown');
  t.same(kind(GROUP, 'v1beta1', 'CertificateSigningRequest').toStorage!(csr('v1beta1', {})).apiVersion, `${GROUP}/v1`);
});

t.test('conditions: Approved and Denied are exclusive and only True; the certificate only through /status', async (t) => {
  const v1 = kind(GROUP, 'v1', 'CertificateSigningRequest');
  const old = csr('v1', clientSpec(), {});
  const approved = { type: 'Approved', status: 'True', reason: 'OK' };
  const denied = { type: 'Denied', status: 'True' };
  t.same(fields(v1.strategy.validate(csr('v1', clientSpec(), { conditions: [approved, denied] }))), ['status.conditions']);
  t.same(v1.strategy.validate(csr('v1', clientSpec(), { conditions: [{ type: 'Approved', status: 'False' }] }))[0].message,
    'Invalid value: "False": Approved condition may only have a status of True');
  t.same(fields(v1.strategy.validate(csr('v1', clientSpec(), { conditions: [approved, approved] }))), ['status.conditions[1].type']);
  const withCert = csr('v1', clientSpec(), { certificate: b64(selfSignedCert()) });
  t.same(v1.strategy.validateStatus!(withCert, old), [], '/status may set the certificate');
  t.same(v1.strategy.validate(withCert, old), [{ reason: 'FieldValueForbidden', message: 'Forbidden: updates may not set certificate content', field: 'status.certificate' }]);
  t.same(v1.strategy.validateStatus!(csr('v1', clientSpec(), { certificate: b64('junk') }), old), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block', field: 'status.certificate' },
  ]);
  const viaStatus = csr('v1', clientSpec(), { conditions: [approved] });
  t.same(v1.strategy.validateStatus!(viaStatus, old), [
    { reason: 'FieldValueForbidden', message: 'Forbidden: updates may not add a condition of type "Approved"', field: 'status.conditions' },
  ]);
  const failed = csr('v1', clientSpec(), { conditions: [{ type: 'Failed', status: 'True' }] });
  t.same(v1.strategy.validateStatus!(failed, old), []);
  const cond = (failed.status as { conditions: Record<string, string>[] }).conditions[0];
  t.ok(cond.lastUpdateTime && cond.lastTransitionTime, 'condition timestamps filled');
});

t.test('create clears the status; updates of the main resource keep spec and status', async (t) => {
  const v1 = kind(GROUP, 'v1', 'CertificateSigningRequest');
  const obj = csr('v1', clientSpec(), { conditions: [{ type: 'Approved', status: 'True' }] });
  t.same(create(v1, obj), []);
  t.same(obj.status, {});
  const old = csr('v1', clientSpec(), { conditions: [{ type: 'Approved', status: 'True' }] });
  const next = csr('v1', { signerName: 'example.com/other' }, {});
  v1.strategy.prepareForUpdate!(next, old);
  t.same([next.spec, next.status], [old.spec, old.status]);
});

t.test('table: name, age, signer, requestor, requested duration, condition', async (t) => {
  const v1 = kind(GROUP, 'v1', 'CertificateSigningRequest');
  t.same(v1.table!.columns.map((c) => c.name), ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
  const obj = csr('v1', clientSpec({ username: 'jane', expirationSeconds: 3600 }), { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True' }], certificate: 'eA==' });
  obj.metadata!.creationTimestamp = '2024-05-01T10:00:00Z';
  t.same(v1.table!.cells(obj, new Date('2024-05-01T10:05:00Z')), ['c', '5m', 'kubernetes.io/kube-apiserver-client', 'jane', '60m', 'Approved,Failed,Issued']);
  t.same(v1.table!.cells(csr('v1', {}), new Date())[2], '<none>');
  t.same(v1.table!.cells(csr('v1', {}), new Date())[5], 'Pending');
  t.same(v1.shortNames, ['csr']);
  t.same(v1.subresources, [{ name: 'approval', type: 'partial', verbs: ['get', 'patch', 'update'] }]);
});
