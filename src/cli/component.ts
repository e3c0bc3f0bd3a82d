/**
 * What every component command does the same way before it runs: parse its flags, answer --help
 * and --version, turn flag problems into one line and exit code 1, then build its logger and name
 * the flags it accepts without acting on them.
 */
import type { Logger } from 'pino';
import { renderHelp } from '../options/help';
import { parseOptions } from '../options/parse';
import type { ParsedOptions } from '../options/parse';
import { FlagError } from '../options/types';
import type { OptionGroup } from '../options/types';
import { createLogger } from '../server/logger';
import type { LoggingConfig } from '../server/logging/config';
import { ballastVersion, versionInfo } from '../server/version';
import type { CliIo } from './io';

export interface ComponentFlags<C> {
  /** the subcommand, e.g. `apiserver` */
  name: string;
  description: string;
  groups: readonly OptionGroup[];
  /** the component's configuration from its parsed flags; throws FlagError on bad combinations */
  configOf(parsed: ParsedOptions): C;
}

/** the configuration to run with, or the exit code when the command is already answered */
export function parseComponentFlags<C>(spec: ComponentFlags<C>, argv: readonly string[], io: CliIo): { config: C } | { exitCode: number } {
  try {
    const parsed = parseOptions(spec.groups, argv);
    if (parsed.bool('help')) {
      io.stdout(renderHelp({ usage: `ballast ${spec.name} [flags]`, description: spec.description, groups: spec.groups }));
      return { exitCode: 0 };
    }
    const version = parsed.value('version');
    if (version === 'raw') {
      io.stdout(JSON.stringify(versionInfo(), null, 2) + '\n');
      return { exitCode: 0 };
    }
    if (version === true) {
      io.stdout(`Ballast v${ballastVersion()} (Kubernetes ${versionInfo().gitVersion})\n`);
      return { exitCode: 0 };
    }
    return { config: spec.configOf(parsed) };
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    io.stderr(`Error: ${err.message}\nRun 'ballast ${spec.name} --help' for usage.\n`);
    return { exitCode: 1 };
  }
}

/** the component's logger, having warned about ignored flags; undefined (error printed) when it cannot be made */
export function componentLogger(config: { logging: LoggingConfig; ignoredFlags: readonly string[] }, program: string, io: CliIo): Logger | undefined {
  let logger: Logger;
  try {
    logger = createLogger({ ...config.logging, program });
  } catch (err) {
    io.stderr(`Error: ${oneLine(err)}\n`);
    return undefined;
  }
  if (config.ignoredFlags.length > 0) {
    logger.warn({ flags: config.ignoredFlags.map((f) => `--${f}`) }, 'These flags are accepted but have no effect yet');
  }
  return logger;
}

/** an error's message on one line */
export function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s*\n\s*/g, ' ').trim() || String(err);
}

/**
 * Run a component until SIGTERM/SIGINT (a second signal exits at once): `start` gets the stop signal
 * and resolves to the exit code; a start-up failure is one `Error:` line and code 1. The process
 * exits shortly after, so open watches or keep-alive sockets never keep it alive.
 */
export async function runUntilSignalled(logger: Logger, io: CliIo, what: string, start: (signal: AbortSignal) => Promise<number>): Promise<number> {
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
    code = await start(stop.signal);
  } catch (err) {
    logger.debug({ err }, `The ${what} could not start`);
    io.stderr(`Error: ${oneLine(err)}\n`);
    code = 1;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  setTimeout(() => process.exit(code), 2000).unref();
  return code;
}
