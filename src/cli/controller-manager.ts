import { controllerManagerConfig, controllerManagerOptionGroups } from '../options/controller-manager';
import type { ControllerManagerConfig } from '../options/controller-manager';
import { renderHelp } from '../options/help';
import { parseOptions } from '../options/parse';
import { FlagError } from '../options/types';
import { createLogger } from '../server/logger';
import { ballastVersion, versionInfo } from '../server/version';
import type { CliIo, Command, CommandResult } from './io';

const DESCRIPTION =
  'The Ballast controller manager runs kube\'s control loops (replica sets, deployments, garbage ' +
  'collection, namespaces, service accounts, certificates...) as clients of the API server: each ' +
  'watches the cluster through shared informers and drives objects toward their desired state. ' +
  'With --leader-elect (the default) only the replica holding the kube-system/kube-controller-manager ' +
  'lease runs them.';

/** `ballast controller-manager`: parse flags, then run until SIGTERM/SIGINT or the lease is lost */
export const controllerManagerCommand: Command = Object.freeze({
  name: 'controller-manager',
  summary: 'run the controllers that drive objects to their desired state',
  run(argv: readonly string[], io: CliIo): CommandResult {
    let config: ControllerManagerConfig;
    try {
      const parsed = parseOptions(controllerManagerOptionGroups, argv);
      if (parsed.bool('help')) {
        io.stdout(renderHelp({ usage: 'ballast controller-manager [flags]', description: DESCRIPTION, groups: controllerManagerOptionGroups }));
        return 0;
      }
      const version = parsed.value('version');
      if (version === 'raw') {
        io.stdout(JSON.stringify(versionInfo(), null, 2) + '\n');
        return 0;
      }
      if (version === true) {
        io.stdout(`Ballast v${ballastVersion()} (Kubernetes ${versionInfo().gitVersion})\n`);
        return 0;
      }
      config = controllerManagerConfig(parsed);
    } catch (err) {
      if (!(err instanceof FlagError)) throw err;
      io.stderr(`Error: ${err.message}\nRun 'ballast controller-manager --help' for usage.\n`);
      return 1;
    }
    return run(config, io);
  },
});

async function run(config: ControllerManagerConfig, io: CliIo): Promise<number> {
  let logger: ReturnType<typeof createLogger>;
  try {
    logger = createLogger({ ...config.logging, program: 'ballast-controller-manager' });
  } catch (err) {
    io.stderr(`Error: ${oneLine(err)}\n`);
    return 1;
  }
  if (config.ignoredFlags.length > 0) {
    logger.warn({ flags: config.ignoredFlags.map((f) => `--${f}`) }, 'These flags are accepted but have no effect yet');
  }
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stop.signal.aborted) {
      logger.warn({ signal }, 'Second signal received; exiting immediately');
      process.exit(1);
    }
    logger.info({ signal }, 'Shutdown requested');
    stop.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  let code: number;
  try {
    // loaded here so --help and flag errors never load the client stack
    const { runControllerManager } = await import('../controllers/manager');
    code = await runControllerManager({ config, logger, signal: stop.signal });
  } catch (err) {
    logger.debug({ err }, 'The controller manager could not start');
    io.stderr(`Error: ${oneLine(err)}\n`);
    code = 1;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  // open watches or keep-alive sockets must not keep the process alive
  setTimeout(() => process.exit(code), 2000).unref();
  return code;
}

function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s*\n\s*/g, ' ').trim() || String(err);
}
