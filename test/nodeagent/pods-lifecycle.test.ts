/**
 * The pod lifecycle against the real API server with a fake runtime: pods bound to the node run
 * and finish per restart policy with kube's status, crash loops show their waiting reason, deletion
 * kills gracefully then removes the pod, static pods from files and a URL get mirror pods,
 * admission rejects beyond --max-pods, orphans are killed.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import { EventRecorder } from '../../src/client/events';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RESOURCES } from '../../src/client/resources';
import { RestClient } from '../../src/client/rest-client';
import type { KubeObject } from '../../src/client/types';
import type { ApiPodStatus } from '../../src/nodeagent/pods/api-status';
import { PodLifecycle, type PodLifecycleConfig } from '../../src/nodeagent/pods/pod-lifecycle';
import type { Pod } from '../../src/nodeagent/types';
import { startApiServer, tempDir, waitFor, type ApiServerProcess } from '../e2e/harness';
import { FakeRuntime } from './pods-fake-runtime';

type Test = { teardown(fn: () => unknown): void };

interface Agent {
  client: RestClient;
  runtime: FakeRuntime;
  lifecycle: PodLifecycle;
  log: string[];
  node: string;
}

async function startAgent(tt: Test, server: ApiServerProcess, node: string, config: Partial<PodLifecycleConfig> = {}, allocatablePods = '110'): Promise<Agent> {
  const client = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'pods-test' }), { qps: -1 });
  await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: node } });
  const nodeObj = await client.get(RESOURCES.nodes, undefined, node);
  await client.update(RESOURCES.nodes, { ...nodeObj, status: { allocatable: { pods: allocatablePods, cpu: '4', memory: '8Gi' }, capacity: { pods: allocatablePods } } }, 'status');
  const runtime = new FakeRuntime();
  const log: string[] = [];
  const origSync = runtime.syncPod.bind(runtime);
  runtime.syncPod = async (pod, status, secrets) => {
    log.push(`sync ${pod.metadata?.name}`);
    return origSync(pod, status, secrets);
  };
  const logger = pino({ level: process.env.BALLAST_TEST_LOG ? 'debug' : 'silent' });
  const lifecycle = new PodLifecycle({
    client,
    nodeName: node,
    runtime,
    volumes: {
      mountPod: async (pod) => void log.push(`mount ${pod.metadata?.name}`),
      unmountPod: async (uid) => void log.push(`unmount ${uid}`),
    },
    probes: {
      addPod: () => {},
      removePod: () => {},
      updatePodStatus: (_uid: string, status: ApiPodStatus) => {
        for (const c of status.containerStatuses) c.ready = c.state.running !== undefined;
      },
      onUpdate: () => {},
    },
    recorder: new EventRecorder(client, { component: 'kubelet', host: node }, logger),
    config: {
      syncFrequencyMs: 60_000,
      fileCheckFrequencyMs: 200,
      httpCheckFrequencyMs: 200,
      maxPods: 110,
      nodeIP: '192.0.2.10',
      relistPeriodMs: 100,
      housekeepingPeriodMs: 200,
      statusSyncPeriodMs: 500,
      backOffPeriodMs: 300,
      ...config,
    },
    logger,
  });
  lifecycle.start();
  tt.teardown(async () => {
    await lifecycle.stop();
    client.close();
  });
  return { client, runtime, lifecycle, log, node };
}

function podManifest(name: string, node: string, extra: Record<string, unknown> = {}, containers = ['web']): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName: node, containers: containers.map((c) => ({ name: c, image: 'busybox' })), ...extra },
  };
}

async function podStatus(a: Agent, name: string): Promise<ApiPodStatus & { reason?: string; message?: string }> {
  const pod = await a.client.get<Pod>(RESOURCES.pods, 'default', name);
  return (pod.status ?? {}) as ApiPodStatus;
}

function condition(s: ApiPodStatus, type: string) {
  return s.conditions?.find((c) => c.type === type);
}

t.test('pod lifecycle', async (t) => {
  const server = await startApiServer(t);

  t.test('a pod runs, then succeeds with restartPolicy Never; volumes are mounted before the runtime syncs', async (t) => {
    const a = await startAgent(t, server, 'node-run');
    a.runtime.plan = () => ({});
    await a.client.create(RESOURCES.pods, 'default', podManifest('once', a.node, { restartPolicy: 'Never' }));
    const running = await waitFor('Running', async () => {
      const s = await podStatus(a, 'once');
      return s.phase === 'Running' && condition(s, 'Ready')?.status === 'True' ? s : undefined;
    });
    t.equal(running.hostIP, '192.0.2.10');
    t.equal(running.podIP, '10.88.0.7');
    t.equal(running.qosClass, 'BestEffort');
    t.ok(running.startTime);
    t.same(running.conditions.map((c) => `${c.type}=${c.status}`).sort(), ['ContainersReady=True', 'Initialized=True', 'PodScheduled=True', 'Ready=True']);
    t.ok(running.containerStatuses[0].state.running?.startedAt);
    t.equal(running.containerStatuses[0].containerID?.startsWith('fake://'), true);
    t.equal(running.containerStatuses[0].imageID, 'sha256:feed');
    t.ok(a.log.indexOf('mount once') >= 0 && a.log.indexOf('mount once') < a.log.indexOf('sync once'), 'mountPod came before the runtime sync');

    a.runtime.exit('once', 'web', 0);
    const done = await waitFor('Succeeded', async () => {
      const s = await podStatus(a, 'once');
      return s.phase === 'Succeeded' ? s : undefined;
    });
    t.equal(done.containerStatuses[0].state.terminated?.reason, 'Completed');
    t.equal(done.containerStatuses[0].state.terminated?.exitCode, 0);
    t.same(condition(done, 'Ready'), { ...condition(done, 'Ready'), status: 'False', reason: 'PodCompleted' });
    const syncs = a.runtime.calls.filter((c) => c.op === 'syncPod').length;
    await new Promise((r) => setTimeout(r, 800));
    t.equal(a.runtime.calls.filter((c) => c.op === 'syncPod').length, syncs, 'a finished pod is not synced by the runtime again');
    t.equal((await podStatus(a, 'once')).phase, 'Succeeded');
  });

  t.test('a steady pod whose status is written is not read again at every status batch', async (t) => {
    const a = await startAgent(t, server, 'node-steady');
    a.runtime.plan = () => ({});
    await a.client.create(RESOURCES.pods, 'default', podManifest('steady', a.node));
    await waitFor('Running and Ready', async () => {
      const s = await podStatus(a, 'steady');
      return s.phase === 'Running' && condition(s, 'Ready')?.status === 'True';
    });
    // the agent's own requests from here on (the status batch runs every 500 ms)
    await new Promise((r) => setTimeout(r, 1000));
    const requests: string[] = [];
    const get = a.client.get.bind(a.client);
    const patch = a.client.patch.bind(a.client);
    a.client.get = ((ref, ns, name, ...rest) => (requests.push(`GET ${ref.resource} ${name}`), get(ref, ns, name, ...rest))) as typeof a.client.get;
    a.client.patch = ((ref, ns, name, ...rest) => (requests.push(`PATCH ${ref.resource} ${name}`), patch(ref, ns, name, ...rest))) as typeof a.client.patch;
    await new Promise((r) => setTimeout(r, 2500));
    t.same(requests, [], 'no GET or PATCH of an unchanged pod in five batches');
  });

  t.test('restartPolicy Never with a failing container: Failed', async (t) => {
    const a = await startAgent(t, server, 'node-fail');
    a.runtime.plan = () => ({ exitCode: 3 });
    await a.client.create(RESOURCES.pods, 'default', podManifest('broken', a.node, { restartPolicy: 'Never' }));
    const s = await waitFor('Failed', async () => {
      const s = await podStatus(a, 'broken');
      return s.phase === 'Failed' ? s : undefined;
    });
    t.equal(s.containerStatuses[0].state.terminated?.exitCode, 3);
    t.equal(s.containerStatuses[0].state.terminated?.reason, 'Error');
    t.equal(condition(s, 'Ready')?.reason, 'ContainersNotReady');
    t.equal(condition(s, 'Ready')?.message, 'containers with unready status: [web]');
  });

  t.test('a crash-looping container shows CrashLoopBackOff and is retried after the back-off', async (t) => {
    const a = await startAgent(t, server, 'node-crash');
    a.runtime.plan = () => ({ exitCode: 1 });
    await a.client.create(RESOURCES.pods, 'default', podManifest('crashy', a.node, { restartPolicy: 'OnFailure' }));
    await waitFor('the first exit', () => a.runtime.calls.filter((c) => c.op === 'syncPod').length >= 2);
    a.runtime.crashLoop = true;
    const s = await waitFor('CrashLoopBackOff', async () => {
      const s = await podStatus(a, 'crashy');
      return s.containerStatuses?.[0]?.state.waiting?.reason === 'CrashLoopBackOff' ? s : undefined;
    });
    t.equal(s.phase, 'Running', 'OnFailure with a failed container stays Running');
    t.match(s.containerStatuses[0].state.waiting?.message, /^back-off 10s restarting failed container=web pod=crashy_default\(/);
    t.equal(s.containerStatuses[0].lastState.terminated?.exitCode, 1);
    t.ok(s.containerStatuses[0].restartCount >= 1);
    const before = a.runtime.calls.filter((c) => c.op === 'syncPod').length;
    await waitFor('a resync after the back-off', () => a.runtime.calls.filter((c) => c.op === 'syncPod').length > before + 1);
    t.pass('resynced');
  });

  t.test('deletion kills with the grace period, then removes the pod', async (t) => {
    const a = await startAgent(t, server, 'node-del');
    await a.client.create(RESOURCES.pods, 'default', podManifest('doomed', a.node));
    await waitFor('Running', async () => (await podStatus(a, 'doomed')).phase === 'Running');
    const uid = (await a.client.get(RESOURCES.pods, 'default', 'doomed')).metadata?.uid ?? '';
    await a.client.delete(RESOURCES.pods, 'default', 'doomed', { gracePeriodSeconds: 7 });
    await waitFor('the pod gone', async () => {
      try {
        await a.client.get(RESOURCES.pods, 'default', 'doomed');
        return false;
      } catch {
        return true;
      }
    });
    const kill = a.runtime.calls.find((c) => c.op === 'killPod' && c.uid === uid);
    t.equal(kill?.grace, 7, 'killed with the deletion grace period');
    t.ok(a.log.includes(`unmount ${uid}`), 'volumes unmounted');
  });

  t.test('admission: beyond the node allocatable pods, OutOfpods', async (t) => {
    const a = await startAgent(t, server, 'node-full', {}, '1');
    await a.client.create(RESOURCES.pods, 'default', { ...podManifest('first', a.node), metadata: { name: 'first', namespace: 'default' } });
    await waitFor('first Running', async () => (await podStatus(a, 'first')).phase === 'Running');
    await a.client.create(RESOURCES.pods, 'default', podManifest('second', a.node));
    const s = await waitFor('second Failed', async () => {
      const s = await podStatus(a, 'second');
      return s.phase === 'Failed' ? s : undefined;
    });
    t.equal(s.reason, 'OutOfpods');
    t.equal(s.message, "Pod Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1");
    t.notOk(a.runtime.pods.has((await a.client.get(RESOURCES.pods, 'default', 'second')).metadata?.uid ?? ''), 'never run');
    const events = await waitFor('the event', async () => {
      const list = await a.client.list(RESOURCES.events, 'default');
      return list.items.find((e: KubeObject) => (e as { reason?: string }).reason === 'OutOfpods' && (e as { involvedObject?: { name?: string } }).involvedObject?.name === 'second');
    });
    t.equal((events as { type?: string }).type, 'Warning');
  });

  t.test('orphans in the runtime are killed', async (t) => {
    const a = await startAgent(t, server, 'node-orphan');
    a.runtime.addOrphan('orphan-uid', 'ghost');
    await waitFor('the orphan killed', () => a.runtime.calls.some((c) => c.op === 'killPod' && c.uid === 'orphan-uid'));
    t.pass('killed');
  });

  t.test('static pods from a directory get mirror pods, recreated when deleted, removed with the manifest', async (t) => {
    const dir = tempDir(t, 'manifests');
    fs.writeFileSync(
      path.join(dir, 'static.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: kv\n  labels: {app: kv}\nspec:\n  containers:\n  - name: kv\n    image: busybox\n',
    );
    const a = await startAgent(t, server, 'node-static', { podManifestPath: dir });
    const mirror = await waitFor('the mirror pod', async () => {
      try {
        const m = await a.client.get<Pod>(RESOURCES.pods, 'default', 'kv-node-static');
        return (m.status as { phase?: string } | undefined)?.phase === 'Running' ? m : undefined;
      } catch {
        return undefined;
      }
    });
    const ann = mirror.metadata?.annotations ?? {};
    t.equal(ann['kubernetes.io/config.source'], 'file');
    t.match(ann['kubernetes.io/config.hash'], /^[0-9a-f]{32}$/);
    t.equal(ann['kubernetes.io/config.mirror'], ann['kubernetes.io/config.hash']);
    t.ok(ann['kubernetes.io/config.seen']);
    t.equal(mirror.metadata?.ownerReferences?.[0]?.kind, 'Node');
    t.equal(mirror.metadata?.ownerReferences?.[0]?.name, 'node-static');
    t.equal((mirror.spec as { nodeName?: string }).nodeName, 'node-static');
    t.same((mirror.spec as { tolerations?: unknown[] }).tolerations, [{ operator: 'Exists', effect: 'NoExecute' }]);
    t.notOk(a.runtime.pods.has(mirror.metadata?.uid ?? ''), 'the runtime runs the static pod, not its mirror');
    t.ok(a.runtime.pods.has(ann['kubernetes.io/config.hash']), 'the static pod runs under its hash UID');

    await a.client.delete(RESOURCES.pods, 'default', 'kv-node-static', { gracePeriodSeconds: 0 });
    const again = await waitFor('a new mirror pod', async () => {
      try {
        const m = await a.client.get<Pod>(RESOURCES.pods, 'default', 'kv-node-static');
        return m.metadata?.uid !== mirror.metadata?.uid && !m.metadata?.deletionTimestamp ? m : undefined;
      } catch {
        return undefined;
      }
    });
    t.ok(again.metadata?.uid, 'recreated');

    fs.rmSync(path.join(dir, 'static.yaml'));
    await waitFor('the mirror pod gone', async () => {
      try {
        await a.client.get(RESOURCES.pods, 'default', 'kv-node-static');
        return false;
      } catch {
        return true;
      }
    });
    await waitFor('the static pod killed', () => a.runtime.calls.some((c) => c.op === 'killPod' && c.uid === ann['kubernetes.io/config.hash']));
    t.pass('removed with the manifest');
  });

  t.test('static pods from a URL, with its headers', async (t) => {
    let seenHeader: string | undefined;
    const web = http.createServer((req, res) => {
      seenHeader = req.headers['x-token'] as string | undefined;
      res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', items: [podManifest('from-url', '')] }));
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    t.teardown(() => new Promise<void>((r) => web.close(() => r())));
    const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/pods`;
    const a = await startAgent(t, server, 'node-url', { manifestUrl: url, manifestUrlHeaders: { 'X-Token': ['secret'] } });
    const mirror = await waitFor('the mirror pod', async () => {
      try {
        return await a.client.get<Pod>(RESOURCES.pods, 'default', 'from-url-node-url');
      } catch {
        return undefined;
      }
    });
    t.equal(mirror.metadata?.annotations?.['kubernetes.io/config.source'], 'http');
    t.equal(seenHeader, 'secret');
  });
});
