/**
 * The standalone mode's stand-ins: API objects are unavailable with kubelet's reason (services are
 * none), events go to the log, and the status manager without a client keeps statuses and writes
 * nothing (it used to call the missing client).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { StatusManager } from '../../src/nodeagent/pods/status-manager';
import { loggingRecorder, standaloneObjectSources } from '../../src/nodeagent/standalone';
import type { Pod } from '../../src/nodeagent/types';

t.test('API objects: kubelet\'s "no kubeClient defined"; no services', async (t) => {
  const sources = standaloneObjectSources();
  await t.rejects(sources.getConfigMap('default', 'cfg'), /couldn't get configMap default\/cfg, no kubeClient defined/);
  await t.rejects(sources.getSecret('default', 's'), /couldn't get secret default\/s, no kubeClient defined/);
  await t.rejects(sources.createToken('default', 'sa', { audiences: [], expirationSeconds: 600, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' } }), /no kubeClient defined/);
  t.same(await sources.listServices('default'), [], 'no service variables');
});

t.test('events are logged', async (t) => {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) }));
  loggingRecorder(logger).event({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' } }, 'Normal', 'Started', 'Started container main');
  const entry = JSON.parse(lines[0]) as Record<string, unknown>;
  t.match(entry, { msg: 'Started container main', reason: 'Started', type: 'Normal', object: 'Pod/default/web' });
});

t.test('the status manager without a client keeps statuses and writes none', async (t) => {
  const manager = new StatusManager({ logger: pino({ level: 'silent' }), now: Date.now, syncPeriodMs: 10, apiPodOf: () => undefined, canBeDeleted: () => true });
  manager.start();
  const pod = { metadata: { name: 'web', namespace: 'default', uid: 'u1' }, spec: { containers: [] } } as unknown as Pod;
  manager.set(pod, { phase: 'Running', conditions: [], containerStatuses: [], qosClass: 'BestEffort' });
  await new Promise((r) => setTimeout(r, 30));
  t.equal(manager.get('u1')?.phase, 'Running');
  await manager.stop();
});
