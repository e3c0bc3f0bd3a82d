import { apiServerConfig, apiServerOptionGroups } from '../options/apiserver';
import type { ApiServerConfig } from '../options/apiserver';
import type { RunningApiServer } from '../server/apiserver';
import { componentLogger, oneLine, parseComponentFlags } from './component';
import type { CliIo, Command, CommandResult } from './io';

const DESCRIPTION =
  'The Ballast API server serves the Kubernetes resource API over HTTPS: it validates objects, ' +
  'stores them in a SQL revision log (embedded SQLite by default) and serves lists and watches. ' +
  'kubectl works against it with the admin.kubeconfig written to the data dir.';

/** `ballast apiserver`: parse flags, then serve until SIGTERM/SIGINT */
export const apiServerCommand: Command = Object.freeze({
  name: 'apiserver',
  summary: 'serve the Kubernetes API over HTTPS, keeping state in a SQL revision log',
  run(argv: readonly string[], io: CliIo): CommandResult {
    const flags = parseComponentFlags({ name: 'apiserver', description: DESCRIPTION, groups: apiServerOptionGroups, configOf: (parsed) => apiServerConfig(parsed, io.env) }, argv, io);
    return 'exitCode' in flags ? flags.exitCode : serve(flags.config, io);
  },
});

async function serve(config: ApiServerConfig, io: CliIo): Promise<number> {
  const logger = componentLogger(config, 'ballast-apiserver', io);
  if (!logger) return 1;

  let stopRequested: string | undefined;
  let shuttingDown: Promise<number> | undefined;
  let server: RunningApiServer | undefined;
  let resolveExit: (code: number) => void = () => {};
  const exit = new Promise<number>((resolve) => (resolveExit = resolve));

  const beginShutdown = (): void => {
    if (!server || shuttingDown) return;
    const running = server;
    shuttingDown = running.shutdown().then(
      () => 0,
      (err: unknown) => {
        logger.error({ err }, 'Shutdown failed');
        return 1;
      },
    );
    void shuttingDown.then(resolveExit);
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopRequested) {
      // kube-apiserver also exits at once on a second signal
      logger.warn({ signal }, 'Second signal received; exiting immediately');
      process.exit(1);
    }
    stopRequested = signal;
    logger.info({ signal }, 'Shutdown requested');
    beginShutdown();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    // loaded here so --help and flag errors never load storage, schemas or the HTTP stack (a require,
    // not import(): the same under the build and under the tests' CommonJS TypeScript hook)
    const { startApiServer } = require('../server/apiserver') as typeof import('../server/apiserver');
    server = await startApiServer({ config, logger });
  } catch (err) {
    // One line for the operator, as kube-apiserver prints its start-up errors (the database in use,
    // the port taken, an unreadable certificate); the stack only at -v 4 and up, for bug reports.
    logger.debug({ err }, 'The API server could not start');
    io.stderr(`Error: ${oneLine(err)}\n`);
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    return 1;
  }
  // a signal that arrived during start-up is honoured now that there is something to stop
  if (stopRequested) beginShutdown();

  const code = await exit;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  // Anything still holding the event loop open (idle keep-alive sockets) must not keep us alive.
  setTimeout(() => process.exit(code), 2000).unref();
  return code;
}
