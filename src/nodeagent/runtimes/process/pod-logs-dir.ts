/**
 * Where the process runtime's pod logs go: kubelet's /var/log/pods when this user may write there,
 * else `<root-dir>/pod-logs`, so that an agent without root runs pods (kubelet 1.20 has no flag
 * for the directory; newer kubelets' podLogsDir field plays this part).
 */
import fs from 'node:fs';
import path from 'node:path';

/** whether `dir` (or, when missing, its nearest existing parent) is writable by this process */
export function writableDir(dir: string): boolean {
  let at = path.resolve(dir);
  for (;;) {
    try {
      fs.accessSync(at, fs.constants.W_OK | fs.constants.X_OK);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false;
    }
    const parent = path.dirname(at);
    if (parent === at) return false;
    at = parent;
  }
}

export function processPodLogsDir(defaultDir: string, rootDir: string): string {
  return writableDir(defaultDir) ? defaultDir : path.join(rootDir, 'pod-logs');
}
