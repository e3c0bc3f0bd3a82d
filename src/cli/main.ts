#!/usr/bin/env node
import { allCommand } from './all';
import { apiServerCommand } from './apiserver';
import { benchCommand } from './bench';
import { controllerManagerCommand } from './controller-manager';
import { schedulerCommand } from './scheduler';
import { nodeAgentCommand } from './nodeagent';
import { processIo } from './io';
import { ballastVersion } from '../server/version';
import type { CliIo, Command, CommandResult } from './io';

/** every subcommand */
export const COMMANDS: readonly Command[] = Object.freeze([
  apiServerCommand,
  benchCommand,
  controllerManagerCommand,
  schedulerCommand,
  nodeAgentCommand,
  allCommand,
]);

function rootHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Ballast: a Kubernetes-compatible control plane whose API server keeps its state in a SQL revision log.',
    '',
    'Usage:',
    '  ballast <command> [flags]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Flags:',
    '  -h, --help      show this help',
    '      --version   print the version',
    '',
    'Run "ballast <command> --help" for the flags of a command.',
    '',
  ].join('\n');
}

/** run the CLI on argv (without node and the script) and return the exit code */
export function main(argv: readonly string[], io: CliIo = processIo): CommandResult {
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    io.stdout(rootHelp());
    return 0;
  }
  if (first === '--version' || first === 'version') {
    io.stdout(`Ballast v${ballastVersion()}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) {
    const what = first.startsWith('-') ? `unknown flag: ${first}` : `unknown command "${first}" for "ballast"`;
    io.stderr(`Error: ${what}\nRun 'ballast --help' for usage.\n`);
    return 1;
  }
  return command.run(rest, io);
}

if (require.main === module) {
  Promise.resolve(main(process.argv.slice(2))).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`Error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
