/**
 * A private containerd for one test file: started as root with its root, state, socket, CNI
 * configuration directory and pod logs under a fresh temporary directory, the CRI plugin enabled
 * with our pause image as the sandbox image, and the offline busybox and pause images imported
 * (`ctr images import`). `stop()` removes the sandboxes through CRI, stops containerd, kills any
 * shim left behind (by the pids containerd recorded), unmounts what is still mounted under the
 * directory and deletes it.
 *
 * Needs root and Debian's containerd, runc and containernetworking-plugins
 * (scripts/install-test-deps.sh). Tests skip only when not root (`containerdSkipReason()`); a missing
 * binary as root is a failure, since CI installs them. The snapshotter is overlayfs, or native where
 * the temporary directory is itself on overlayfs; BALLAST_TEST_SNAPSHOTTER=native|overlayfs forces one.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CNI_BIN_DIR, containerdConfigToml, killRecordedProcesses, removeAllPodSandboxes, snapshotterFor, sweepContainerdDir, unmountUnder, whichBinary } from '../../src/all/containerd';
import { BUSYBOX_IMAGE, PAUSE_IMAGE } from '../../src/nodeagent/cri/busybox-images';
import { ImageServiceClient } from '../../src/nodeagent/cri/image-service-client';
import { RuntimeServiceClient } from '../../src/nodeagent/cri/runtime-service-client';
import { testImageArchives } from './images';

const execFileAsync = promisify(execFile);

export { CNI_BIN_DIR };

export interface Containerd {
  /** the temporary directory holding everything */
  dir: string;
  socket: string;
  /** `unix://<socket>`, for the CRI clients */
  endpoint: string;
  /** where tests write CNI configurations (containerd's CRI plugin reads the first, by name) */
  cniConfDir: string;
  /** a directory for pod sandboxes' log directories */
  podLogRoot: string;
  snapshotter: 'overlayfs' | 'native';
  runtime: RuntimeServiceClient;
  images: ImageServiceClient;
  /** containerd's own log so far */
  log(): string;
  stop(): Promise<void>;
}

/** why the containerd tests cannot run here, or undefined when they can */
export function containerdSkipReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'containerd and runc need root; run the tests as root (CI does)';
  return undefined;
}

function chooseSnapshotter(dir: string): 'overlayfs' | 'native' {
  const forced = process.env.BALLAST_TEST_SNAPSHOTTER;
  if (forced === 'overlayfs' || forced === 'native') return forced;
  return snapshotterFor(dir);
}

async function waitFor<T>(what: string, timeoutMs: number, attempt: () => Promise<T | undefined>, alive: () => string | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const dead = alive();
    if (dead !== undefined) throw new Error(`${what}: ${dead}`);
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${timeoutMs} ms${lastError instanceof Error ? ` (last error: ${lastError.message})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** starts containerd, waits for its CRI service, imports the test images */
export async function startContainerd(): Promise<Containerd> {
  for (const binary of ['containerd', 'ctr', 'runc', 'containerd-shim-runc-v2']) {
    if (!whichBinary(binary)) throw new Error(`${binary} not found: run scripts/install-test-deps.sh (Debian's containerd and runc)`);
  }
  const archives = testImageArchives();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-containerd-'));
  const socket = path.join(dir, 'containerd.sock');
  const cniConfDir = path.join(dir, 'cni', 'net.d');
  const podLogRoot = path.join(dir, 'pods');
  fs.mkdirSync(cniConfDir, { recursive: true });
  fs.mkdirSync(podLogRoot, { recursive: true });
  const snapshotter = chooseSnapshotter(dir);
  const configFile = path.join(dir, 'config.toml');
  fs.writeFileSync(configFile, containerdConfigToml({ dir, socket, cniConfDir, snapshotter, sandboxImage: PAUSE_IMAGE }));

  const logFile = path.join(dir, 'containerd.log');
  const logFd = fs.openSync(logFile, 'a');
  const child: ChildProcess = spawn('containerd', ['--config', configFile], { stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  let exited: string | undefined;
  child.on('exit', (code, signal) => {
    exited = `containerd exited (${signal ?? `code ${code}`})`;
  });
  const log = (): string => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
  const endpoint = `unix://${socket}`;
  const runtime = new RuntimeServiceClient({ endpoint, timeoutMs: 10_000 });
  const images = new ImageServiceClient({ endpoint, timeoutMs: 10_000 });

  const stop = async (): Promise<void> => {
    await removeAllPodSandboxes(runtime);
    runtime.close();
    images.close();
    if (exited === undefined) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    }
    killRecordedProcesses(path.join(dir, 'state'));
    await unmountUnder(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    const notRunning = (): string | undefined => (exited === undefined ? undefined : `${exited}; its log:\n${log().slice(-4000)}`);
    await waitFor('containerd CRI service', 30_000, async () => (fs.existsSync(socket) ? runtime.version() : undefined), notRunning);
    for (const [archive, name] of [[archives.pause, PAUSE_IMAGE], [archives.busybox, BUSYBOX_IMAGE]] as const) {
      await execFileAsync('ctr', ['-a', socket, '-n', 'k8s.io', 'images', 'import', '--snapshotter', snapshotter, archive]);
      // the CRI plugin learns of imported images from containerd's events, a moment later
      await waitFor(`image ${name} seen by CRI`, 10_000, async () => (await images.imageStatus({ image: name })).image ?? undefined, notRunning);
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await stop().catch(() => undefined);
    throw new Error(`starting containerd in ${dir}: ${message}`);
  }
  return { dir, socket, endpoint, cniConfDir, podLogRoot, snapshotter, runtime, images, log, stop };
}


export { sweepContainerdDir };
