import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadEgressSelectorConfig } from '../../src/server/egress-selector';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-egress-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string): string => {
  const f = path.join(dir, `egress-${n++}.yaml`);
  fs.writeFileSync(f, text);
  return f;
};

t.test('Direct selections are accepted, master read as controlplane', async (t) => {
  const f = file('apiVersion: apiserver.k8s.io/v1alpha1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: Direct\n- name: master\n  connection:\n    proxyProtocol: Direct\n- name: etcd\n  connection:\n    proxyProtocol: Direct\n');
  t.same(loadEgressSelectorConfig(f).map((s) => s.name), ['cluster', 'controlplane', 'etcd']);
});

t.test('every problem is one line naming the file', async (t) => {
  const head = 'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\n';
  const cases: [string, string][] = [
    [`${head}egressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: GRPC\n    transport:\n      uds:\n        udsName: /x.sock\n`, 'egressSelections[0].connection.proxyProtocol: GRPC is not supported by Ballast (only Direct)'],
    [`${head}egressSelections:\n- name: nodes\n  connection:\n    proxyProtocol: Direct\n`, 'egressSelections[0].name: Unsupported value: "nodes"'],
    [`${head}egressSelections:\n- name: etcd\n  connection:\n    proxyProtocol: Direct\n- name: etcd\n  connection:\n    proxyProtocol: Direct\n`, 'egressSelections[1].name: Duplicate value: "etcd"'],
    [`${head}egressSelections:\n- name: etcd\n  connection:\n    proxyProtocol: Smoke\n`, 'egressSelections[0].connection.proxyProtocol: Unsupported value: "Smoke"'],
    ['apiVersion: v1\nkind: EgressSelectorConfiguration\n', 'apiVersion "v1" is not one of'],
    ['kind: [\n', 'line 2: '],
  ];
  for (const [text, message] of cases) {
    const f = file(text);
    t.throws(() => loadEgressSelectorConfig(f), { message: new RegExp(`^--egress-selector-config-file ${f}: .*${message.replace(/[[\]().]/g, '\\$&')}`) });
  }
  t.throws(() => loadEgressSelectorConfig(path.join(dir, 'none.yaml')), { message: `--egress-selector-config-file ${dir}/none.yaml: no such file or directory` });
});
