/** CONNECT admission over HTTP: exec, attach, portforward and proxy run the chain before they are answered */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import { createApiServerApp } from '../../src/http/app';
import { write } from '../helpers/registry-fixture';
import type { AdmissionAttributes } from '../../src/admission/types';
import { getJson, testVersion } from '../http/helpers';
import { admissionFixture } from './admission-fixture';

t.test('exec into a privileged pod is refused by DenyExecOnPrivileged; the chain sees CONNECT and the options', async (t) => {
  const f = await admissionFixture(['DenyExecOnPrivileged']);
  const seen: AdmissionAttributes[] = [];
  const admission = {
    admit: async (a: AdmissionAttributes) => {
      seen.push(a);
      await f.chain.admit(a);
    },
    validate: (a: AdmissionAttributes) => f.chain.validate(a),
  };
  const { app } = createApiServerApp({ scheme: f.scheme, registry: f.registry, logger: pino({ level: 'silent' }), health: [], version: testVersion, admission });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await f.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/namespaces/default/pods`;
  const pod = (name: string, privileged: boolean) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'x', securityContext: { privileged } }] },
  });
  await f.registry.create(f.target('pods', 'default'), pod('priv', true), write);
  await f.registry.create(f.target('pods', 'default'), pod('plain', false), write);

  const refused = await getJson(`${url}/priv/exec?command=sh&command=-c&stdout=true&container=app`, { method: 'POST' });
  t.match(refused, { status: 403, body: { kind: 'Status', reason: 'Forbidden', message: 'pods "priv" is forbidden: cannot exec into or attach to a privileged container' } });
  t.match(seen[0], { operation: 'CONNECT', subresource: 'exec', namespace: 'default', name: 'priv', object: { kind: 'PodExecOptions', apiVersion: 'v1', command: ['sh', '-c'], container: 'app', stdout: true } });
  t.match(await getJson(`${url}/priv/attach?stdout=true`, { method: 'POST' }), { status: 403 });
  const allowed = await getJson(`${url}/plain/exec?command=sh&stdout=true`, { method: 'POST' });
  t.match(allowed, { status: 503, body: { message: /no node agent serves node "n1" yet/ } }, 'admitted, then answered as before');
  await getJson(`${url}/priv/portforward?ports=80`, { method: 'POST' });
  t.match(seen.at(-1), { operation: 'CONNECT', subresource: 'portforward', object: { kind: 'PodPortForwardOptions', ports: [80] } });
  const count = seen.length;
  await getJson(`${url}/priv/log`);
  t.equal(seen.length, count, 'logs are reads: no admission');
});
