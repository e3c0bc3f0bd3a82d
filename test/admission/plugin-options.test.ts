import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { enabledAdmissionPlugins, DEFAULT_ENABLED_ADMISSION_PLUGINS, ORDERED_ADMISSION_PLUGINS, AdmissionPlugins, loadAdmissionConfig } from '../../src/admission/index';
import { parseOptions } from '../../src/options/parse';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';

t.test('the default set is kube 1.20\'s, in kube\'s order', async (t) => {
  const on = enabledAdmissionPlugins([], []);
  t.equal(on.length, DEFAULT_ENABLED_ADMISSION_PLUGINS.length);
  t.same(on.slice(0, 3), ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount']);
  t.same(on.slice(-3), ['MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota']);
  t.ok(on.includes('StorageObjectInUseProtection'), 'on: the pvc-protection and pv-protection controllers take its finalizers off');
  t.notOk(enabledAdmissionPlugins([], ['StorageObjectInUseProtection']).includes('StorageObjectInUseProtection'), 'and it can be turned off');
});

t.test('enable and disable: the order never depends on the flags', async (t) => {
  const on = enabledAdmissionPlugins(['AlwaysDeny', 'AlwaysPullImages', 'NamespaceAutoProvision'], ['ResourceQuota', 'LimitRanger']);
  t.equal(on[0], 'NamespaceAutoProvision');
  t.equal(on[on.length - 1], 'AlwaysDeny');
  t.notOk(on.includes('ResourceQuota'));
  t.notOk(on.includes('LimitRanger'));
  t.ok(on.indexOf('AlwaysPullImages') > on.indexOf('ServiceAccount'));
  t.same(on, ORDERED_ADMISSION_PLUGINS.filter((p) => on.includes(p)));
});

t.test('unknown and overlapping names are flag errors in kube\'s words', async (t) => {
  t.throws(() => enabledAdmissionPlugins(['Nope'], []), { name: 'FlagError', message: 'enable-admission-plugins plugin "Nope" is unknown' });
  t.throws(() => enabledAdmissionPlugins([], ['Nope']), { message: 'disable-admission-plugins plugin "Nope" is unknown' });
  t.throws(() => enabledAdmissionPlugins(['AlwaysDeny'], ['AlwaysDeny']), { message: '[AlwaysDeny] in enable-admission-plugins and disable-admission-plugins overlapped' });
  const parsed = parseOptions(apiServerOptionGroups, ['--enable-admission-plugins=AlwaysDeny,Bogus']);
  t.throws(() => apiServerConfig(parsed, {}), { message: 'enable-admission-plugins plugin "Bogus" is unknown' });
  const ok = apiServerConfig(parseOptions(apiServerOptionGroups, ['--disable-admission-plugins=ServiceAccount', '--default-not-ready-toleration-seconds=60']), {});
  t.notOk(ok.admission.plugins.includes('ServiceAccount'));
  t.equal(ok.admission.defaultNotReadyTolerationSeconds, 60);
});

t.test('the registry is open: a factory registered by name runs in its place; known names without one admit', async (t) => {
  const seen: string[] = [];
  const plugins = new AdmissionPlugins().register('ValidatingAdmissionWebhook', () => ({
    admit: async () => undefined,
    validate: async (a) => void seen.push(a.operation),
  }));
  t.throws(() => plugins.register('Made-Up', () => ({ admit: async () => undefined, validate: async () => undefined })));
  const chain = plugins.build(['MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook'], () => ({} as never));
  t.same(chain.names, ['MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook']);
  await chain.admit({ operation: 'CREATE' } as never);
  await chain.validate({ operation: 'CREATE' } as never);
  t.same(seen, ['CREATE']);
});

t.test('AdmissionConfiguration: inline and path configurations, v1 and v1alpha1; bad files name themselves', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-admission-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'quota.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources: []\n');
  const file = path.join(dir, 'admission.yaml');
  fs.writeFileSync(file, [
    'apiVersion: apiserver.config.k8s.io/v1',
    'kind: AdmissionConfiguration',
    'plugins:',
    '- name: ResourceQuota',
    '  path: quota.yaml',
    '- name: EventRateLimit',
    '  configuration:',
    '    kind: Configuration',
    '    limits: [{type: Server, qps: 5, burst: 10}]',
  ].join('\n'));
  const configs = loadAdmissionConfig(file);
  t.match(configs.get('ResourceQuota'), { kind: 'ResourceQuotaConfiguration' });
  t.match(configs.get('EventRateLimit'), { limits: [{ type: 'Server', qps: 5 }] });
  const alpha = path.join(dir, 'alpha.yaml');
  fs.writeFileSync(alpha, 'apiVersion: apiserver.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins: []\n');
  t.equal(loadAdmissionConfig(alpha).size, 0);
  const bad = path.join(dir, 'bad.yaml');
  fs.writeFileSync(bad, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: [\n');
  t.throws(() => loadAdmissionConfig(bad), { message: new RegExp(`^admission-control-config-file ${bad}: .*line \\d+.*not valid YAML`) });
  const missing = path.join(dir, 'missing-path.yaml');
  fs.writeFileSync(missing, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ResourceQuota\n  path: nowhere.yaml\n');
  t.throws(() => loadAdmissionConfig(missing), { message: /^admission-control-config-file .*missing-path\.yaml: unable to read .*nowhere\.yaml: ENOENT/ });
  const unknown = path.join(dir, 'unknown.yaml');
  fs.writeFileSync(unknown, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: Foo\n');
  t.throws(() => loadAdmissionConfig(unknown), { message: /unknown admission plugin "Foo"/ });
});
