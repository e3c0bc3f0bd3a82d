/**
 * The offline test images (src/nodeagent/cri/busybox-images.ts) as OCI archives for
 * `ctr images import`, built from Debian's busybox-static once and cached under .tools/images/:
 * a cached archive is named after a hash of the busybox binary and the image's name, so a new
 * binary or builder version gives a new file. Written to a temporary name and renamed, so test
 * files running side by side never read half an archive.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { busyboxImage, DEFAULT_BUSYBOX_BINARY, pauseImage } from '../../src/nodeagent/cri/busybox-images';
import { ociArchive, type OciImage } from '../../src/nodeagent/cri/oci-archive';

/** bump when the builder's output changes for the same binary */
const BUILDER_VERSION = '1';

export const IMAGES_DIR = path.resolve(__dirname, '../../.tools/images');

export interface TestImageArchives {
  /** docker.io/library/busybox:latest */
  busybox: string;
  /** k8s.gcr.io/pause:3.2 */
  pause: string;
}

/** the paths of the two archives, built when missing; throws when the busybox binary is missing */
export function testImageArchives(binary: string = DEFAULT_BUSYBOX_BINARY): TestImageArchives {
  if (!fs.existsSync(binary)) {
    throw new Error(`${binary} not found: run scripts/install-test-deps.sh (Debian's busybox-static)`);
  }
  const binaryHash = crypto.createHash('sha256').update(fs.readFileSync(binary)).digest('hex');
  return {
    busybox: cachedArchive('busybox', busyboxImage({ binary }), binaryHash),
    pause: cachedArchive('pause', pauseImage({ binary }), binaryHash),
  };
}

function cachedArchive(label: string, image: OciImage, binaryHash: string): string {
  const key = crypto.createHash('sha256').update(`${BUILDER_VERSION}\n${image.name}\n${binaryHash}`).digest('hex').slice(0, 16);
  const file = path.join(IMAGES_DIR, `${label}-${key}.oci.tar`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(IMAGES_DIR, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, ociArchive(image).archive);
  fs.renameSync(temporary, file);
  return file;
}
