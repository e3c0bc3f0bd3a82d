import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { KubeconfigError, loadClientConfig } from '../../src/client/kubeconfig';

function write(t: Tap.Test, name: string, text: string): string {
  const dir = t.testdir({});
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}
declare namespace Tap { type Test = Parameters<Parameters<typeof t.test>[1]>[0] }

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('the current context: server, CA data, client certificate files relative to the file', async (t) => {
  const dir = t.testdir({ 'c.crt': 'CERT', 'c.key': 'KEY' });
  const file = path.join(dir, 'config');
  fs.writeFileSync(
    file,
    `apiVersion: v1
kind: Config
current-context: b
contexts:
- name: a
  context: {cluster: one, user: u1}
- name: b
  context: {cluster: two, user: u2}
clusters:
- name: one
  cluster: {server: "https://one:1"}
- name: two
  cluster: {server: "https://two:6443/", certificate-authority-data: ${b64('CA')}}
users:
- name: u1
  user: {token: abc}
- name: u2
  user: {client-certificate: c.crt, client-key: c.key}
`,
  );
  const c = loadClientConfig(file);
  t.equal(c.server, 'https://two:6443');
  t.equal(c.ca, 'CA');
  t.equal(c.cert, 'CERT');
  t.equal(c.key, 'KEY');
  const a = loadClientConfig(file, { context: 'a', master: 'https://override:9' });
  t.equal(a.server, 'https://override:9', '--master wins');
  t.equal(a.token, 'abc');
});

t.test('errors name the file and the problem', async (t) => {
  t.throws(() => loadClientConfig(path.join(os.tmpdir(), 'no-such-kubeconfig')), { name: 'KubeconfigError', message: /no such file/ });
  const bad = write(t, 'bad', 'current-context: x\ncontexts: []\n');
  t.throws(() => loadClientConfig(bad), { message: /context "x" does not exist/ });
  const basic = write(t, 'basic', 'current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: "https://h"}}]\nusers: [{name: u, user: {username: a, password: b}}]\n');
  t.throws(() => loadClientConfig(basic), { message: /basic authentication/ });
  t.throws(() => loadClientConfig(undefined), KubeconfigError);
  t.equal(loadClientConfig(undefined, { master: '127.0.0.1:6443' }).server, 'https://127.0.0.1:6443');
});
