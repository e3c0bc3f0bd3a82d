/** writes an AdmissionConfiguration naming one plugin's own file, for the configuration-error tests */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';

export function admissionConfigWithPath(t: Test, plugin: string, own: string): { file: string; ownFile: string; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-plugin-config-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ownFile = path.join(dir, 'plugin.yaml');
  fs.writeFileSync(ownFile, own);
  const file = path.join(dir, 'admission.yaml');
  fs.writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ${plugin}\n  path: plugin.yaml\n`);
  return { file, ownFile, dir };
}
