import { allConfig, allOptionGroups } from '../options/all';
import { componentLogger, parseComponentFlags, runUntilSignalled } from './component';
import type { CliIo, Command, CommandResult } from './io';

const DESCRIPTION =
  'Run a whole single-node cluster in one process, as k3s does: the API server, the controller ' +
  'manager, the scheduler and a node agent. Each component still talks to the API server over HTTPS ' +
  'with its own identity (the kubeconfigs written to the data dir). Containers run in containerd: ' +
  'the one at --container-runtime-endpoint or its usual socket, else one Ballast starts with its ' +
  'state in the data dir (as root, when containerd and runc are installed), else as host processes. ' +
  'The API server\'s flags apply as they are; the other components take theirs through ' +
  '--controller-manager-arg, --scheduler-arg and --nodeagent-arg.';

/** `ballast all`: parse flags, then run every component until SIGTERM/SIGINT */
export const allCommand: Command = Object.freeze({
  name: 'all',
  summary: 'run a single-node cluster (every component) in one process',
  run(argv: readonly string[], io: CliIo): CommandResult {
    const flags = parseComponentFlags({ name: 'all', description: DESCRIPTION, groups: allOptionGroups, configOf: (parsed) => allConfig(parsed, io.env) }, argv, io);
    if ('exitCode' in flags) return flags.exitCode;
    const config = flags.config;
    const logger = componentLogger(config.apiserver, 'ballast', io);
    if (!logger) return 1;
    return runUntilSignalled(logger, io, 'cluster', async (signal) => {
      // loaded here so --help and flag errors never load the components
      const { runAll } = require('../all/run') as typeof import('../all/run');
      return runAll(config, { logger, signal });
    });
  },
});
