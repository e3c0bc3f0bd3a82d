/**
 * A containerd that Ballast starts for `ballast all`, as k3s does: its configuration, root, state
 * and socket live under <data-dir>/containerd, its CNI configuration directory is the one the node
 * agent writes, and the CRI plugin serves streams on loopback. A containerd left running by an
 * earlier `ballast all` on the same data dir is reused. On stop containerd gets SIGTERM; the
 * containers' shims go on running, as under k3s, and the next start finds them again.
 *
 * The configuration's rules are shared with the tests' private containerd (test/helpers/containerd.ts).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import { RuntimeServiceClient } from '../nodeagent/cri/runtime-service-client';

const execFileAsync = promisify(execFile);

/** Debian's containernetworking-plugins install the CNI plugins here */
export const CNI_BIN_DIR = '/usr/lib/cni';
/** overlayfs cannot sit on overlayfs (a container's own root): then containerd's native snapshotter */
const OVERLAYFS_MAGIC = 0x794c7630;

/**
 * Whether this process may lower OOM scores (CAP_SYS_RESOURCE, bit 24 of CapEff). Without it runc
 * cannot give the sandbox kubelet's -998 and fails with "can't get final child's PID from pipe":
 * then the CRI plugin is told to keep scores at or above its own (restrict_oom_score_adj).
 */
export function canLowerOomScore(): boolean {
  const capEff = /^CapEff:\s*([0-9a-f]+)$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
  return capEff !== undefined && (BigInt(`0x${capEff}`) & (1n << 24n)) !== 0n;
}

/** overlayfs, or native where `dir` is itself on overlayfs */
export function snapshotterFor(dir: string): 'overlayfs' | 'native' {
  return fs.statfsSync(dir).type === OVERLAYFS_MAGIC ? 'native' : 'overlayfs';
}

export interface ContainerdLayout {
  /** root and state directories, and the opt plugin's, are made under this */
  dir: string;
  socket: string;
  cniConfDir: string;
  sandboxImage: string;
  snapshotter: 'overlayfs' | 'native';
  logLevel?: string;
}

/** containerd's configuration (version 2) with the CRI plugin set up for a node agent */
export function containerdConfigToml(l: ContainerdLayout): string {
  return `version = 2
root = "${l.dir}/root"
state = "${l.dir}/state"
# snapshotters that cannot work here would only log errors at every start
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = "${l.socket}"

[ttrpc]
  address = "${l.socket}.ttrpc"

[debug]
  level = "${l.logLevel ?? 'info'}"

[plugins."io.containerd.internal.v1.opt"]
  path = "${l.dir}/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${l.sandboxImage}"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  restrict_oom_score_adj = ${!canLowerOomScore()}
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "${l.snapshotter}"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${CNI_BIN_DIR}"
    conf_dir = "${l.cniConfDir}"
    max_conf_num = 1
`;
}

/** the path of `binary` in the first PATH directory that has it */
export function whichBinary(binary: string, envPath = process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'): string | undefined {
  for (const dir of envPath.split(':')) {
    if (dir === '') continue;
    const file = path.join(dir, binary);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface ManagedContainerd {
  socket: string;
  endpoint: string;
  cniConfDir: string;
  snapshotter: 'overlayfs' | 'native';
  /** whether this process started it (false: one left running earlier was reused) */
  started: boolean;
  stop(): Promise<void>;
}

async function answers(endpoint: string): Promise<boolean> {
  const client = new RuntimeServiceClient({ endpoint, timeoutMs: 2000 });
  try {
    await client.version();
    return true;
  } catch {
    return false;
  } finally {
    client.close();
  }
}

/** start (or reuse) the containerd of `dir`; resolves once its CRI service answers */
export async function startManagedContainerd(opts: { dir: string; sandboxImage: string; logger: Logger; timeoutMs?: number }): Promise<ManagedContainerd> {
  const dir = path.resolve(opts.dir);
  const socket = path.join(dir, 'containerd.sock');
  const endpoint = `unix://${socket}`;
  const cniConfDir = path.join(dir, 'cni', 'net.d');
  fs.mkdirSync(cniConfDir, { recursive: true, mode: 0o700 });
  const snapshotter = snapshotterFor(dir);
  if (fs.existsSync(socket) && (await answers(endpoint))) {
    opts.logger.info({ socket }, 'Using the containerd an earlier run started');
    return { socket, endpoint, cniConfDir, snapshotter, started: false, stop: async () => {} };
  }
  fs.rmSync(socket, { force: true });
  const configFile = path.join(dir, 'config.toml');
  fs.writeFileSync(configFile, containerdConfigToml({ dir, socket, cniConfDir, sandboxImage: opts.sandboxImage, snapshotter }));
  const logFile = path.join(dir, 'containerd.log');
  const logFd = fs.openSync(logFile, 'a');
  // its own process group: a terminal's Ctrl-C reaches Ballast, which stops containerd itself
  const child: ChildProcess = spawn('containerd', ['--config', configFile], { stdio: ['ignore', logFd, logFd], detached: true });
  fs.closeSync(logFd);
  let exited: string | undefined;
  child.on('exit', (code, signal) => {
    exited = signal ?? `code ${code}`;
  });
  child.on('error', (err) => {
    exited = err.message;
  });
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    if (exited !== undefined) throw new Error(`containerd exited (${exited}); its log is ${logFile}`);
    if (fs.existsSync(socket) && (await answers(endpoint))) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`containerd did not answer on ${socket} within ${Math.round((opts.timeoutMs ?? 30_000) / 1000)} s; its log is ${logFile}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  opts.logger.info({ socket, pid: child.pid, log: logFile, snapshotter }, 'Started containerd');
  const stop = async (): Promise<void> => {
    if (exited !== undefined) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  };
  return { socket, endpoint, cniConfDir, snapshotter, started: true, stop };
}

/**
 * SIGKILL the shims and container processes whose pids containerd recorded under its state
 * directory (`io.containerd.runtime.v2.task/<namespace>/<id>/{shim,init}.pid`): after a failed
 * test they would outlive containerd.
 */
export function killRecordedProcesses(stateDir: string): void {
  const tasks = path.join(stateDir, 'io.containerd.runtime.v2.task');
  if (!fs.existsSync(tasks)) return;
  for (const namespace of fs.readdirSync(tasks)) {
    for (const id of fs.readdirSync(path.join(tasks, namespace))) {
      for (const file of ['init.pid', 'shim.pid']) {
        const pidFile = path.join(tasks, namespace, id, file);
        const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').trim()) : NaN;
        if (Number.isInteger(pid) && pid > 1) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
    }
  }
}

/** unmount every mount point under `dir`, deepest first (rootfs overlays, shm, sandbox files) */
export async function unmountUnder(dir: string): Promise<void> {
  const prefix = `${fs.realpathSync(dir)}/`;
  const points = fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point !== undefined && point.startsWith(prefix))
    .map((point) => point.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .sort((a, b) => b.length - a.length);
  for (const point of points) {
    await execFileAsync('umount', [point]).catch(() => execFileAsync('umount', ['-l', point]).catch(() => undefined));
  }
}

/**
 * After a containerd under `dir` has stopped (its containers' shims outlive it, as under k3s): kill
 * the shims and containers it recorded and unmount what is left, so `dir` can be removed.
 */
export async function sweepContainerdDir(dir: string): Promise<void> {
  killRecordedProcesses(path.join(dir, 'state'));
  await unmountUnder(dir);
}

/**
 * Stop and remove every pod sandbox, with their containers, shims and network namespaces: the CNI
 * plugins' DEL runs, so the bridge's masquerade rules and host-local's address leases go too (a
 * sweep of the directory kills processes without it, and they stay behind). For runs that end for
 * good (tests, benchmarks); `ballast all` leaves its pods running when it stops, as k3s does.
 */
export async function removeAllPodSandboxes(runtime: RuntimeServiceClient): Promise<void> {
  let sandboxes;
  try {
    sandboxes = await runtime.listPodSandbox();
  } catch {
    return; // containerd is not answering: a sweep of its directory still cleans up the rest
  }
  for (const sandbox of sandboxes) {
    await runtime.stopPodSandbox(sandbox.id).catch(() => undefined);
    await runtime.removePodSandbox(sandbox.id).catch(() => undefined);
  }
}
