import { apiServerConfig, apiServerOptionGroups } from '../options/apiserver';
import { renderHelp } from '../options/help';
import { parseOptions } from '../options/parse';
import { FlagError } from '../options/types';
import { createLogger } from '../server/logger';
import { ballastVersion, versionInfo } from '../server/version';
import type { ApiServerConfig } from '../options/apiserver';
import type { RunningApiServer } from '../server/apiserver';
import type { ParsedOptions } from '../options/parse';
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
    let parsed: ParsedOptions;
    let config: ApiServerConfig;
    try {
      parsed = parseOptions(apiServerOptionGroups, argv);
      if (parsed.bool('help')) {
        io.stdout(renderHelp({ usage: 'ballast apiserver [flags]', description: DESCRIPTION, groups: apiServerOptionGroups }));
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
      config = apiServerConfig(parsed, io.env);
    } catch (err) {
      if (!(err instanceof FlagError)) throw err;
      io.stderr(`Error: ${err.message}\nRun 'ballast apiserver --help' for usage.\n`);
      return 1;
    }
    return serve(config, io);
  },
});

async function serve(config: ApiServerConfig, io: CliIo): Promise<number> {
  let logger: ReturnType<typeof createLogger>;
  try {
    logger = createLogger({ ...config.logging, program: 'ballast-apiserver' });
  } catch (err) {
    io.stderr(`Error: ${oneLine(err)}\n`);
    return 1;
  }
  if (config.ignoredFlags.length > 0) {
    logger.warn({ flags: config.ignoredFlags.map((f) => `--${f}`) }, 'These flags are accepted but have no effect yet');
  }

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
    // loaded here so --help and flag errors never load storage, schemas or the HTTP stack
    const { startApiServer } = await import('../server/apiserver');
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

/** an error's message on one line */
function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s*\n\s*/g, ' ').trim() || String(err);
}
