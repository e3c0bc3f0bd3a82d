/** Process facts read from /proc and the file system: RSS, file sizes, free ports, waiting. */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** resident set size of a process in MiB (VmRSS), NaN when unknown */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** size of a file, or the total of a folder's files, in MiB (0 when absent) */
export function sizeMiB(p: string): number {
  let total = 0;
  const walk = (q: string) => {
    let st: fs.Stats;
    try {
      st = fs.statSync(q);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const e of fs.readdirSync(q)) walk(path.join(q, e));
    else total += st.size;
  };
  walk(p);
  return total / (1024 * 1024);
}

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** user + system CPU seconds of a process so far (Linux /proc) */
export function cpuSecondsOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** the processes started under pid (children, grandchildren...), from /proc */
export function descendantsOf(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(fs.readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      parentOf.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parentOf) if (parent === p) (out.push(child), walk(child));
  };
  walk(pid);
  return out;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
