/** where a command writes and how it learns about the environment; tests pass their own */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

export const processIo: CliIo = Object.freeze({
  stdout: (text: string) => void process.stdout.write(text),
  stderr: (text: string) => void process.stderr.write(text),
  env: process.env,
});

/**
 * What a command returns: an exit code now, or (for servers) a promise of the exit code that
 * resolves when the server has shut down.
 */
export type CommandResult = number | Promise<number>;

export interface Command {
  readonly name: string;
  readonly summary: string;
  run(argv: readonly string[], io: CliIo): CommandResult;
}
