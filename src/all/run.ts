/**
 * `ballast all`: the API server, the controller manager, the scheduler and one node agent in one
 * process, as k3s runs them. They share nothing but the process: each component is a client of the
 * API server over HTTPS with its own identity (the kubeconfigs the API server writes in its data
 * dir: system:kube-controller-manager, system:kube-scheduler, system:node:<name>), so RBAC, the Node
 * authorizer and NodeRestriction treat them as they treat separate processes.
 *
 * Start: the API server (or, switched off, the kubeconfigs an API server left in the data dir) and
 * the container runtime side by side, then the other components. Stop (the signal, or any
 * component ending on its own): the node agent, the scheduler and the controller manager together,
 * then the API server, then the containerd Ballast started.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { loadClientConfig } from '../client/kubeconfig';
import { allNodeAgentConfig, allPaths, type AllConfig } from '../options/all';
import { ensureClientPki } from '../server/pki';
import { writeKubeconfig } from '../server/kubeconfig';
import { schedulerRunConfig } from '../scheduler/run-config';
import { chooseRuntime, type ChosenRuntime } from './runtime';

export interface RunAllDeps {
  logger: Logger;
  signal: AbortSignal;
}

/** a component running until its signal aborts; resolves to its exit code */
interface Running {
  name: string;
  done: Promise<number>;
}

/** the kubeconfig of a node whose name is not this host's: its own client certificate from the generated CA */
function ensureNodeKubeconfig(config: AllConfig, logger: Logger): void {
  const file = config.nodeKubeconfig;
  const hostFile = allPaths(config.apiserver.dataDir).kubeconfig('kubelet');
  if (file === hostFile) return;
  const server = loadClientConfig(hostFile).server;
  const client = ensureClientPki({
    certDir: config.apiserver.certDir,
    logger,
    name: path.basename(file, '.kubeconfig'),
    subject: { commonName: `system:node:${config.nodeName}`, organization: 'system:nodes' },
  });
  writeKubeconfig(file, { server, caCert: client.caCert, client });
}

/** the kubeconfigs the other components need, when the API server is not ours to start */
function checkKubeconfigs(config: AllConfig): void {
  const paths = allPaths(config.apiserver.dataDir);
  const needed = [
    ...(config.controllerManager ? [paths.kubeconfig('controller-manager')] : []),
    ...(config.scheduler ? [paths.kubeconfig('scheduler')] : []),
    ...(config.nodeAgentArgs ? [paths.kubeconfig('kubelet')] : []),
  ];
  for (const file of needed) {
    if (!fs.existsSync(file)) throw new Error(`--disable-apiserver: ${file} does not exist; start an API server with --data-dir ${config.apiserver.dataDir} first`);
  }
}

export async function runAll(config: AllConfig, { logger, signal }: RunAllDeps): Promise<number> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  signal.addEventListener('abort', onSignal, { once: true });
  let apiserver: { shutdown(): Promise<void> } | undefined;
  let runtime: ChosenRuntime | undefined;
  const running: Running[] = [];
  try {
    const serverStarting = config.runApiServer
      ? (async () => {
          // loaded here so a flag error never loads storage, schemas or the HTTP stack
          const { startApiServer } = require('../server/apiserver') as typeof import('../server/apiserver');
          apiserver = await startApiServer({ config: config.apiserver, logger: logger.child({ component: 'apiserver' }) });
        })()
      : Promise.resolve(checkKubeconfigs(config));
    const runtimeChoosing = config.nodeAgentArgs
      ? chooseRuntime({ config, logger: logger.child({ component: 'runtime' }) }).then((r) => (runtime = r))
      : Promise.resolve(undefined);
    // both settle before going on, so a failure of one never leaves the other half started
    const [server, chosen] = await Promise.allSettled([serverStarting, runtimeChoosing]);
    if (server.status === 'rejected') throw server.reason;
    if (chosen.status === 'rejected') throw chosen.reason;
    if (stop.signal.aborted) return 0;

    if (config.controllerManager) {
      const { runControllerManager } = require('../controllers/manager') as typeof import('../controllers/manager');
      running.push({ name: 'controller manager', done: runControllerManager({ config: config.controllerManager, logger: logger.child({ component: 'controller-manager' }), signal: stop.signal }) });
    }
    if (config.scheduler) {
      const { runScheduler } = require('../scheduler/run') as typeof import('../scheduler/run');
      running.push({ name: 'scheduler', done: runScheduler({ config: schedulerRunConfig(config.scheduler), logger: logger.child({ component: 'scheduler' }), signal: stop.signal }) });
    }
    if (config.nodeAgentArgs && runtime) {
      ensureNodeKubeconfig(config, logger);
      const agentConfig = allNodeAgentConfig(config.nodeAgentArgs, runtime.agentArgs);
      const { runNodeAgent } = require('../nodeagent/run') as typeof import('../nodeagent/run');
      running.push({ name: 'node agent', done: runNodeAgent(agentConfig, { logger: logger.child({ component: 'nodeagent' }), signal: stop.signal }) });
    }
    logger.info({ components: ['apiserver', ...running.map((r) => r.name)].filter((n) => n !== 'apiserver' || config.runApiServer), runtime: runtime?.kind }, 'Ballast is running');

    // the first component to end (an error, a lost lease) ends them all
    const first = await Promise.race([
      new Promise<undefined>((resolve) => (stop.signal.aborted ? resolve(undefined) : stop.signal.addEventListener('abort', () => resolve(undefined), { once: true }))),
      ...running.map((r) =>
        r.done.then(
          (code) => ({ name: r.name, code, err: undefined as unknown }),
          (err: unknown) => ({ name: r.name, code: 1, err }),
        ),
      ),
    ]);
    let code = 0;
    if (first) {
      code = first.code === 0 ? 1 : first.code;
      logger.error({ err: first.err, component: first.name, exitCode: first.code }, `The ${first.name} stopped; stopping the others`);
      stop.abort();
    }
    const results = await Promise.allSettled(running.map((r) => r.done));
    for (const [i, r] of results.entries()) {
      if (r.status === 'rejected') {
        logger.error({ err: r.reason, component: running[i].name }, `The ${running[i].name} failed`);
        code ||= 1;
      }
    }
    return code;
  } finally {
    stop.abort();
    await Promise.allSettled(running.map((r) => r.done));
    signal.removeEventListener('abort', onSignal);
    await apiserver?.shutdown().catch((err: unknown) => logger.error({ err }, 'The API server\'s shutdown failed'));
    await runtime?.stop().catch((err: unknown) => logger.error({ err }, 'Stopping containerd failed'));
  }
}
