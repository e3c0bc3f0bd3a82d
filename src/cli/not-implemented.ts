import type { Command } from './io';

/** a component that has a name and a place in the CLI but no implementation yet */
export function notImplementedCommand(name: string, summary: string): Command {
  return Object.freeze({
    name,
    summary: `${summary} (not implemented yet)`,
    run(_argv: readonly string[], io: { stderr: (t: string) => void }): number {
      io.stderr(`Error: "ballast ${name}" is not implemented yet; only "ballast apiserver" exists in this version.\n`);
      return 1;
    },
  });
}
