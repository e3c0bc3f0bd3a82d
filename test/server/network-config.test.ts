import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parseOptions } from '../../src/options/parse';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { FlagError } from '../../src/options/types';
import { checkKubeletOptions } from '../../src/server/kubelet-options';

const config = (...argv: string[]) => apiServerConfig(parseOptions(apiServerOptionGroups, ['--data-dir=/x', ...argv]), {});

t.test('defaults', async (t) => {
  const c = config();
  t.equal(c.advertiseAddress, undefined);
  t.equal(c.externalHostname, undefined);
  t.same(c.masterService, { namespace: 'default', reconciler: 'lease', apiServerCount: 1, nodePort: 0 });
  t.same(c.identityLease, { enabled: true, durationSeconds: 3600, renewIntervalSeconds: 10 });
  t.equal(c.enableGarbageCollector, true);
  t.equal(c.maxConnectionBytesPerSec, 0);
  t.equal(c.livezGracePeriodMs, 0);
  t.same(c.kubelet.preferredAddressTypes, ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']);
  t.equal(c.kubelet.timeoutMs, 5000);
});

t.test('given values', async (t) => {
  const c = config('--advertise-address=10.1.2.3', '--external-hostname=api.example', '--endpoint-reconciler-type=master-count', '--apiserver-count=3',
    '--master-service-namespace=masters', '--kubernetes-service-node-port=30443', '--livez-grace-period=30s', '--feature-gates=APIServerIdentity=false',
    '--identity-lease-duration-seconds=60', '--enable-garbage-collector=false', '--kubelet-preferred-address-types=InternalIP,Hostname');
  t.equal(c.advertiseAddress, '10.1.2.3');
  t.equal(c.externalHostname, 'api.example');
  t.same(c.masterService, { namespace: 'masters', reconciler: 'master-count', apiServerCount: 3, nodePort: 30443 });
  t.equal(c.livezGracePeriodMs, 30_000);
  t.same(c.identityLease, { enabled: false, durationSeconds: 60, renewIntervalSeconds: 10 }, 'the APIServerIdentity gate turns the lease off');
  t.equal(c.enableGarbageCollector, false);
  t.same(c.kubelet.preferredAddressTypes, ['InternalIP', 'Hostname']);
});

t.test('refused values', async (t) => {
  t.throws(() => config('--kubernetes-service-node-port=80'), new FlagError("kubernetes service node port range 30000-32767 doesn't contain 80"));
  t.throws(() => config('--kubernetes-service-node-port=70000'), /must be between 0 and 65535, inclusive/);
  t.throws(() => config('--livez-grace-period=-1s'), /--livez-grace-period can not be a negative value/);
  t.throws(() => config('--kubelet-preferred-address-types=InternalIP,LegacyHostIP'), /unknown address type "LegacyHostIP"/);
  t.throws(() => config('--endpoint-reconciler-type=none2'));
  t.throws(() => config('--max-connection-bytes-per-sec=-5'));
});

t.test('the kubelet files are checked', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-kubelet-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ca = path.join(dir, 'ca.crt');
  fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  const notPem = path.join(dir, 'key.txt');
  fs.writeFileSync(notPem, 'hello');
  const base = { preferredAddressTypes: [], timeoutMs: 5000 };
  t.doesNotThrow(() => checkKubeletOptions({ ...base, certificateAuthority: ca }));
  t.throws(() => checkKubeletOptions({ ...base, clientCertificate: ca }), /--kubelet-client-certificate and --kubelet-client-key must be given together/);
  t.throws(() => checkKubeletOptions({ ...base, clientCertificate: ca, clientKey: notPem }), { message: `--kubelet-client-key ${notPem}: no PEM data found` });
  t.throws(() => checkKubeletOptions({ ...base, certificateAuthority: path.join(dir, 'no.crt') }), { message: `--kubelet-certificate-authority ${dir}/no.crt: no such file or directory` });
});
