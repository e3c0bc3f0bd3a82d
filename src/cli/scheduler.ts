import fs from 'node:fs';
import { schedulerConfig, schedulerOptionGroups } from '../options/scheduler';
import type { SchedulerConfig } from '../options/scheduler';
import { componentLogger, oneLine, parseComponentFlags, runUntilSignalled } from './component';
import type { CliIo, Command, CommandResult } from './io';

const DESCRIPTION =
  'The Ballast scheduler assigns pods to nodes as kube-scheduler does: for each pending pod whose ' +
  'spec.schedulerName one of its profiles serves, it filters the nodes that can run it, scores them ' +
  'with the profile\'s plugins, and binds the pod to the best. Configured with a ' +
  'KubeSchedulerConfiguration (--config) or the deprecated flags and Policy. With --leader-elect ' +
  '(the default) only the replica holding the kube-system/kube-scheduler lease schedules.';

/** `ballast scheduler`: parse flags, then run until SIGTERM/SIGINT or the lease is lost */
export const schedulerCommand: Command = Object.freeze({
  name: 'scheduler',
  summary: 'assign pods to nodes',
  run(argv: readonly string[], io: CliIo): CommandResult {
    const flags = parseComponentFlags({ name: 'scheduler', description: DESCRIPTION, groups: schedulerOptionGroups, configOf: schedulerConfig }, argv, io);
    if ('exitCode' in flags) return flags.exitCode;
    if (flags.config.writeConfigTo) return writeConfig(flags.config, io);
    return run(flags.config, io);
  },
});

/** --write-config-to: the effective configuration as YAML, then exit (kube does not start) */
async function writeConfig(config: SchedulerConfig, io: CliIo): Promise<number> {
  const { configurationYaml } = require('../scheduler/config') as typeof import('../scheduler/config');
  try {
    fs.writeFileSync(config.writeConfigTo!, configurationYaml(config.componentConfig));
  } catch (err) {
    io.stderr(`Error: ${oneLine(err)}\n`);
    return 1;
  }
  io.stderr(`Wrote configuration to: ${config.writeConfigTo}\n`);
  return 0;
}

async function run(config: SchedulerConfig, io: CliIo): Promise<number> {
  const logger = componentLogger(config, 'ballast-scheduler', io);
  if (!logger) return 1;
  if (config.extenders.length > 0) logger.warn({ extenders: config.extenders.length }, 'Scheduler extenders are configured but Ballast does not call them');
  return runUntilSignalled(logger, io, 'scheduler', async (signal) => {
    // loaded here so --help and flag errors never load the client stack
    const { runScheduler } = require('../scheduler/run') as typeof import('../scheduler/run');
    const { schedulerRunConfig } = require('../scheduler/run-config') as typeof import('../scheduler/run-config');
    return runScheduler({
      config: schedulerRunConfig(config),
      logger,
      signal,
    });
  });
}
