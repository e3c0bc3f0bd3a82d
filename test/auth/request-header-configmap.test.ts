import t from 'tap';
import { extensionAuthenticationConfigMap } from '../../src/auth/authn/extension-authentication';

t.test('the extension-apiserver-authentication ConfigMap follows the flags', async (t) => {
  const rh = { clientCa: 'PROXY-CA', allowedNames: ['front-proxy-client'], usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeadersPrefix: ['X-Remote-Extra-'] };
  const b = extensionAuthenticationConfigMap({ clientCa: 'CLIENT-CA', requestHeader: rh });
  t.same(b.object.metadata, { name: 'extension-apiserver-authentication', namespace: 'kube-system' });
  t.same(b.object.data, {
    'client-ca-file': 'CLIENT-CA',
    'requestheader-client-ca-file': 'PROXY-CA',
    'requestheader-allowed-names': '["front-proxy-client"]',
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  });
  t.same(extensionAuthenticationConfigMap({ clientCa: 'CLIENT-CA' }).object.data, { 'client-ca-file': 'CLIENT-CA' }, 'no front-proxy CA: only the client CA');

  const stored = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system', resourceVersion: '7' }, data: { ...(b.object.data as Record<string, string>) } };
  t.equal(b.reconcile!(structuredClone(stored), structuredClone(b.object)), undefined, 'unchanged: left alone');
  const now = extensionAuthenticationConfigMap({ clientCa: 'NEW-CA' });
  const next = now.reconcile!(structuredClone(stored), structuredClone(now.object));
  t.same(next?.data, { 'client-ca-file': 'NEW-CA' }, 'changed flags rewrite the data');
  t.equal(next?.metadata?.resourceVersion, '7', 'on top of the stored object');
});
