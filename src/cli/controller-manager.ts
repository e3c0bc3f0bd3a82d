import { controllerManagerConfig, controllerManagerOptionGroups } from '../options/controller-manager';
import type { ControllerManagerConfig } from '../options/controller-manager';
import { componentLogger, parseComponentFlags, runUntilSignalled } from './component';
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
    const flags = parseComponentFlags({ name: 'controller-manager', description: DESCRIPTION, groups: controllerManagerOptionGroups, configOf: controllerManagerConfig }, argv, io);
    return 'exitCode' in flags ? flags.exitCode : run(flags.config, io);
  },
});

async function run(config: ControllerManagerConfig, io: CliIo): Promise<number> {
  const logger = componentLogger(config, 'ballast-controller-manager', io);
  if (!logger) return 1;
  return runUntilSignalled(logger, io, 'controller manager', async (signal) => {
    // loaded here so --help and flag errors never load the client stack
    const { runControllerManager } = require('../controllers/manager') as typeof import('../controllers/manager');
    return runControllerManager({ config, logger, signal });
  });
}
