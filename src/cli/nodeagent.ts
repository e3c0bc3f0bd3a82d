/**
 * `ballast nodeagent`: kubelet's command line. Flags and the --config file become a checked
 * NodeAgentConfig; `run` starts the node agent with it (filled in when the pod workers exist).
 */
import { nodeAgentConfig, nodeAgentOptionGroups } from '../options/nodeagent';
import type { NodeAgentConfig } from '../nodeagent/config/types';
import { componentLogger, parseComponentFlags, runUntilSignalled } from './component';
import type { CliIo, Command, CommandResult } from './io';

export const NODE_AGENT_DESCRIPTION =
  'The Ballast node agent is the primary agent on each node, as the kubelet is. It registers the node ' +
  'with the API server (by host name, --hostname-override, or a provider), and keeps the containers of ' +
  'the pods bound to the node running and healthy, as their PodSpecs describe; it never touches ' +
  'containers it did not create. Besides the API server, pods come from static manifests: a file or ' +
  'directory (--pod-manifest-path, checked every --file-check-frequency) and a URL (--manifest-url, ' +
  'fetched every --http-check-frequency). Containers run through a CRI runtime such as containerd ' +
  '(--container-runtime remote), as host processes (process) or only on paper (simulated). A ' +
  'KubeletConfiguration file (--config) may hold the settings; flags given on the command line ' +
  'override it.';

/** `ballast nodeagent`: parse flags and the config file, then run until SIGTERM/SIGINT */
export const nodeAgentCommand: Command = Object.freeze({
  name: 'nodeagent',
  summary: 'run the pods assigned to this node (the kubelet)',
  run(argv: readonly string[], io: CliIo): CommandResult {
    const flags = parseComponentFlags(
      { name: 'nodeagent', description: NODE_AGENT_DESCRIPTION, groups: nodeAgentOptionGroups, configOf: (parsed) => nodeAgentConfig(parsed) },
      argv,
      io,
    );
    if ('exitCode' in flags) return flags.exitCode;
    return run(flags.config, io);
  },
});

/** start the node agent and run it until SIGTERM/SIGINT */
export async function run(config: NodeAgentConfig, io: CliIo): Promise<number> {
  const logger = componentLogger(config, 'ballast-nodeagent', io);
  if (!logger) return 1;
  return runUntilSignalled(logger, io, 'node agent', async (signal) => {
    // loaded here so --help and flag errors never load the client and runtime stack
    const { runNodeAgent } = require('../nodeagent/run') as typeof import('../nodeagent/run');
    return runNodeAgent(config, { logger, signal });
  });
}
