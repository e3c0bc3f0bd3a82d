/**
 * --fail-swap-on: kubelet 1.20 refuses to start when /proc/swaps lists anything below its header.
 */
import fs from 'node:fs';

/** kubelet's error when the given /proc/swaps text shows swap on, else undefined */
export function swapProblem(procSwaps: string): string | undefined {
  const lines = procSwaps.trim().split('\n');
  if (lines.length <= 1) return undefined;
  return `running with swap on is not supported, please disable swap! or set --fail-swap-on flag to false. /proc/swaps contained: [${lines.join(' ')}]`;
}

/** the check on this host; a host without /proc/swaps has no swap to refuse */
export function hostSwapProblem(read: () => string = () => fs.readFileSync('/proc/swaps', 'utf8')): string | undefined {
  let text: string;
  try {
    text = read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return swapProblem(text);
}
