/**
 * hostPath volume type checks (kube's pkg/volume/hostpath checkType), with kube's messages.
 * DirectoryOrCreate makes the directory (0755) and FileOrCreate the file (0644) when nothing is
 * there; the other types only check.
 */
import * as fs from 'fs';

function stat(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
}

export function checkHostPathType(p: string, type: string | undefined): void {
  if (type === undefined || type === '') return;
  let st = stat(p);
  // the OrCreate types make what is missing, then check like their plain types
  if (type === 'DirectoryOrCreate' && !st) {
    fs.mkdirSync(p, { recursive: true, mode: 0o755 });
    return;
  }
  if (type === 'FileOrCreate' && !st) {
    fs.closeSync(fs.openSync(p, fs.constants.O_CREAT | fs.constants.O_RDONLY, 0o644));
    st = stat(p);
  }
  const checks: Record<string, [(s: fs.Stats) => boolean, string]> = {
    DirectoryOrCreate: [(s) => s.isDirectory(), 'a directory'],
    Directory: [(s) => s.isDirectory(), 'a directory'],
    FileOrCreate: [(s) => s.isFile(), 'a file'],
    File: [(s) => s.isFile(), 'a file'],
    Socket: [(s) => s.isSocket(), 'a socket file'],
    CharDevice: [(s) => s.isCharacterDevice(), 'a character device'],
    BlockDevice: [(s) => s.isBlockDevice(), 'a block device'],
  };
  const check = checks[type];
  if (check) {
    if (!st || !check[0](st)) throw new Error(`hostPath type check failed: ${p} is not ${check[1]}`);
    return;
  }
  throw new Error(`${type} is an invalid volume type`);
}
