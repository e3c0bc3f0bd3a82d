/**
 * The few mount operations volumes need (tmpfs for memory-backed emptyDir), behind an interface so
 * tests without root can replace them.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import { promisify } from 'util';

const run = promisify(execFile);

export interface Mounter {
  /** whether tmpfs mounts can be made at all (root and a working mount(8)) */
  canMount(): boolean;
  mountTmpfs(dir: string): Promise<void>;
  unmount(dir: string): Promise<void>;
  /** the mount points under `dir` (deepest first), from /proc/self/mountinfo */
  mountPointsUnder(dir: string): string[];
}

/** the host's mount(8) and umount(8) */
export class SystemMounter implements Mounter {
  canMount(): boolean {
    return process.platform === 'linux' && process.getuid?.() === 0;
  }

  async mountTmpfs(dir: string): Promise<void> {
    await run('mount', ['-t', 'tmpfs', 'tmpfs', dir]);
  }

  async unmount(dir: string): Promise<void> {
    await run('umount', [dir]);
  }

  mountPointsUnder(dir: string): string[] {
    let text = '';
    try {
      text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
    } catch {
      return [];
    }
    const prefix = dir.endsWith('/') ? dir : dir + '/';
    const points = text
      .split('\n')
      .map((line) => (line.split(' ')[4] ?? '').replace(/\\040/g, ' '))
      .filter((p) => p === dir || p.startsWith(prefix));
    return [...new Set(points)].sort((a, b) => b.length - a.length);
  }
}
