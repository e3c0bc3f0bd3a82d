/**
 * Files named by flags: read them, and say why not in the plain words of the system error
 * ("no such file or directory"), without Node's code prefix and repeated path, as kube's
 * one-line start-up errors do.
 */
import fs from 'node:fs';

export function fileErrorWords(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return /^[A-Z]+: ([^,]+)/.exec(message)?.[1] ?? message.split('\n')[0];
}

/** the file's text, or `error(`${flag} ${file}: <why>`)` thrown */
export function readFlagFile(file: string, flag: string, error: (message: string) => Error = (m) => new Error(m)): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw error(`${flag} ${file}: ${fileErrorWords(err)}`);
  }
}
