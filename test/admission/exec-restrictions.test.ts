import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import type { AdmissionAttributes } from '../../src/admission/types';
import { rejects } from '../helpers/registry-assert';
import { admissionFixture } from './admission-fixture';
import { connectOptions } from '../../src/http/handlers/connect-admission';

const admin = { name: 'admin', groups: ['system:masters'] };

async function setup(t: Tap, enabled: string[]) {
  const f = await admissionFixture(enabled);
  t.teardown(() => f.close());
  const pod = (name: string, spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }], ...spec },
  });
  const target = f.target('pods', 'default');
  await f.registry.create(target, pod('plain', {}), { dryRun: false, user: admin });
  await f.registry.create(target, pod('priv', { containers: [{ name: 'c', image: 'x', securityContext: { privileged: true } }] }), { dryRun: false, user: admin });
  await f.registry.create(target, pod('hostpid', { hostPID: true }), { dryRun: false, user: admin });
  await f.registry.create(target, pod('hostnet', { hostNetwork: true }), { dryRun: false, user: admin });
  await f.registry.create(target, pod('hostipc', { hostIPC: true }), { dryRun: false, user: admin });
  const connect = async (name: string, subresource = 'exec') => {
    const a: AdmissionAttributes = {
      operation: 'CONNECT', kind: f.kind('pods'), subresource, namespace: 'default', name,
      object: { apiVersion: 'v1', kind: 'PodExecOptions' }, dryRun: false, user: admin,
    };
    await f.chain.admit(a);
    await f.chain.validate(a);
  };
  return { f, connect };
}
type Tap = Parameters<Parameters<typeof t.test>[1]>[0];

t.test('DenyEscalatingExec: privileged or host namespaces', async (t) => {
  const { connect } = await setup(t, ['DenyEscalatingExec']);
  await connect('plain');
  await rejects(t, connect('priv'), 403, 'Forbidden', 'pods "priv" is forbidden: cannot exec into or attach to a privileged container');
  await rejects(t, connect('hostpid', 'attach'), 403, 'Forbidden', 'pods "hostpid" is forbidden: cannot exec into or attach to a container using host pid');
  await rejects(t, connect('hostnet'), 403, 'Forbidden', 'pods "hostnet" is forbidden: cannot exec into or attach to a container using host network');
  await rejects(t, connect('hostipc'), 403, 'Forbidden', 'pods "hostipc" is forbidden: cannot exec into or attach to a container using host ipc');
  await rejects(t, connect('missing'), 403, 'Forbidden', 'pods "missing" is forbidden: pods "missing" not found');
  await connect('priv', 'portforward');
  t.pass('port forwarding is not restricted');
});

t.test('DenyExecOnPrivileged: privileged only', async (t) => {
  const { connect } = await setup(t, ['DenyExecOnPrivileged']);
  await rejects(t, connect('priv'), 403, 'Forbidden', 'pods "priv" is forbidden: cannot exec into or attach to a privileged container');
  await connect('hostpid');
  await connect('hostnet', 'attach');
  t.pass('host namespaces are allowed');
});

t.test('the options object a CONNECT carries', async (t) => {
  const q = new URLSearchParams('command=ls&command=-l&container=c&stdin=true&tty=1&stderr=false');
  t.same(connectOptions('PodExecOptions', q), { kind: 'PodExecOptions', apiVersion: 'v1', stdin: true, stdout: true, tty: true, container: 'c', command: ['ls', '-l'] });
  t.same(connectOptions('PodAttachOptions', new URLSearchParams('')), { kind: 'PodAttachOptions', apiVersion: 'v1', stdout: true, stderr: true });
  t.same(connectOptions('PodPortForwardOptions', new URLSearchParams('ports=80&ports=443')), { kind: 'PodPortForwardOptions', apiVersion: 'v1', ports: [80, 443] });
  t.throws(() => connectOptions('PodExecOptions', new URLSearchParams('stdin=maybe')), /invalid syntax/);
  t.same(connectOptions('NodeProxyOptions', new URLSearchParams('path=/x')), { kind: 'NodeProxyOptions', apiVersion: 'v1', path: '/x' });
});
