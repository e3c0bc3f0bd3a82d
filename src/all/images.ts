/**
 * Images for a containerd that reaches no registry: the OCI archives a user drops in
 * <data-dir>/images (k3s's air-gap directory) are imported at start, and with --offline-images a
 * busybox image and the sandbox image are built from the host's static busybox and imported too.
 * Only what the runtime does not have yet is imported.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import { DEFAULT_BUSYBOX_BINARY, busyboxImage, pauseImage } from '../nodeagent/cri/busybox-images';
import { ImageServiceClient } from '../nodeagent/cri/image-service-client';
import { ociArchive } from '../nodeagent/cri/oci-archive';

const execFileAsync = promisify(execFile);

/** the sandbox image built offline; named apart from registry images so it never shadows one */
export const OFFLINE_PAUSE_IMAGE = 'ballast.local/pause:3.2';

/** why the offline images cannot be built from `binary`, or undefined when they can */
export function offlineImagesUnavailable(binary: string = DEFAULT_BUSYBOX_BINARY): string | undefined {
  if (!fs.existsSync(binary)) return `${binary} does not exist (Debian's busybox-static provides it)`;
  if (!isStaticElf(binary)) return `${binary} is not statically linked (Debian's busybox-static provides one that is)`;
  return undefined;
}

/** the busybox version of `binary` (1.35.0), from its banner */
export function busyboxVersion(binary: string = DEFAULT_BUSYBOX_BINARY): string {
  const banner = execFileSync(binary, [], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).split('\n')[0] ?? '';
  return /v(\d+(?:\.\d+)*)/.exec(banner)?.[1] ?? 'unknown';
}

/** the name of the offline busybox image: a version tag, so kube's pull policy is IfNotPresent */
export function offlineBusyboxImage(binary: string = DEFAULT_BUSYBOX_BINARY): string {
  return `ballast.local/busybox:${busyboxVersion(binary)}`;
}

/** true for an ELF executable without an interpreter (statically linked): it runs in an empty image */
export function isStaticElf(file: string): boolean {
  const data = fs.readFileSync(file);
  if (data.length < 64 || data.readUInt32BE(0) !== 0x7f454c46 || data[4] !== 2 || data[5] !== 1) return false; // 64-bit little-endian only
  const phoff = Number(data.readBigUInt64LE(0x20));
  const phentsize = data.readUInt16LE(0x36);
  const phnum = data.readUInt16LE(0x38);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 4 > data.length) return false;
    if (data.readUInt32LE(at) === 3) return false; // PT_INTERP: needs a dynamic loader
  }
  return true;
}

export interface ImportOptions {
  socket: string;
  snapshotter: string;
  /** <data-dir>/images */
  airGapDir: string;
  /** build and import busybox and the sandbox image from the host's busybox (offlineImagesUnavailable() said it can) */
  offline: boolean;
  logger: Logger;
  busyboxBinary?: string;
}

async function ctrImport(socket: string, snapshotter: string, archive: string): Promise<void> {
  await execFileAsync('ctr', ['-a', socket, '-n', 'k8s.io', 'images', 'import', '--snapshotter', snapshotter, archive]);
}

/** import the air-gap archives and, with `offline`, the built images; resolves to the names imported */
export async function importImages(o: ImportOptions): Promise<string[]> {
  const imported: string[] = [];
  if (fs.existsSync(o.airGapDir)) {
    for (const name of fs.readdirSync(o.airGapDir).filter((n) => n.endsWith('.tar')).sort()) {
      await ctrImport(o.socket, o.snapshotter, path.join(o.airGapDir, name));
      imported.push(name);
    }
  }
  if (!o.offline) return imported;
  const binary = o.busyboxBinary ?? DEFAULT_BUSYBOX_BINARY;
  const images = new ImageServiceClient({ endpoint: `unix://${o.socket}`, timeoutMs: 10_000 });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-images-'));
  try {
    for (const image of [busyboxImage({ binary, name: offlineBusyboxImage(binary) }), pauseImage({ binary, name: OFFLINE_PAUSE_IMAGE })]) {
      if ((await images.imageStatus({ image: image.name })).image) continue;
      const file = path.join(scratch, 'image.tar');
      fs.writeFileSync(file, ociArchive(image).archive);
      await ctrImport(o.socket, o.snapshotter, file);
      // the CRI plugin learns of imported images from containerd's events, a moment later
      for (let i = 0; i < 100 && !(await images.imageStatus({ image: image.name })).image; i++) await new Promise((r) => setTimeout(r, 100));
      imported.push(image.name);
    }
  } finally {
    images.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  if (imported.length > 0) o.logger.info({ images: imported }, 'Imported images');
  return imported;
}
