/**
 * OCI image archives built without a registry: the tar form of an OCI image layout (`oci-layout`,
 * `index.json`, `blobs/sha256/...`) holding one image of gzip layers, as `ctr images import` and
 * `docker load` read it. The image's name is in the index entry's annotations: containerd's
 * `io.containerd.image.name` (the full reference) and the OCI `org.opencontainers.image.ref.name`
 * (the tag). The same input gives the same bytes, so the image's digest is stable across builds.
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { tarArchive, type TarEntry } from './tar';

/** the runtime settings of an image (the `config` object of the OCI image configuration) */
export interface OciImageConfig {
  entrypoint?: string[];
  cmd?: string[];
  env?: string[];
  workingDir?: string;
  user?: string;
  stopSignal?: string;
  labels?: Record<string, string>;
}

export interface OciImage {
  /** the full reference, e.g. `docker.io/library/busybox:latest` */
  name: string;
  /** each layer's entries, bottom layer first */
  layers: TarEntry[][];
  config: OciImageConfig;
  /** GOARCH-style; the machine's architecture when absent */
  architecture?: string;
  /** RFC 3339; fixed by default so that builds are reproducible */
  created?: string;
}

export const MEDIA_TYPES = Object.freeze({
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
});

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}

/** Go's name for the architecture Node runs on, as image platforms spell it */
export function goArch(arch: string = process.arch): string {
  const names: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };
  return names[arch] ?? arch;
}

/** the tag of a reference (`latest` when it has none) */
export function referenceTag(name: string): string {
  const last = name.slice(name.lastIndexOf('/') + 1).split('@')[0];
  const colon = last.indexOf(':');
  return colon >= 0 ? last.slice(colon + 1) : 'latest';
}

/** the image as an OCI layout tar archive, with its manifest's digest */
export function ociArchive(image: OciImage): { archive: Buffer; manifestDigest: string } {
  const blobs = new Map<string, Buffer>();
  const addBlob = (mediaType: string, data: Buffer): Descriptor => {
    const digest = `sha256:${crypto.createHash('sha256').update(data).digest('hex')}`;
    blobs.set(digest, data);
    return { mediaType, digest, size: data.length };
  };

  const created = image.created ?? '1970-01-01T00:00:00Z';
  const diffIds: string[] = [];
  const layers = image.layers.map((entries) => {
    const tar = tarArchive(entries);
    diffIds.push(`sha256:${crypto.createHash('sha256').update(tar).digest('hex')}`);
    return addBlob(MEDIA_TYPES.layerGzip, zlib.gzipSync(tar, { level: 9 }));
  });
  const { entrypoint, cmd, env, workingDir, user, stopSignal, labels } = image.config;
  const config = addBlob(
    MEDIA_TYPES.config,
    json({
      created,
      architecture: image.architecture ?? goArch(),
      os: 'linux',
      config: {
        ...(user !== undefined && { User: user }),
        ...(env !== undefined && { Env: env }),
        ...(entrypoint !== undefined && { Entrypoint: entrypoint }),
        ...(cmd !== undefined && { Cmd: cmd }),
        ...(workingDir !== undefined && { WorkingDir: workingDir }),
        ...(labels !== undefined && { Labels: labels }),
        ...(stopSignal !== undefined && { StopSignal: stopSignal }),
      },
      rootfs: { type: 'layers', diff_ids: diffIds },
      history: diffIds.map(() => ({ created, created_by: 'ballast oci-archive' })),
    }),
  );
  const manifest = addBlob(MEDIA_TYPES.manifest, json({ schemaVersion: 2, mediaType: MEDIA_TYPES.manifest, config, layers }));
  const index = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.index,
    manifests: [
      {
        ...manifest,
        platform: { architecture: image.architecture ?? goArch(), os: 'linux' },
        annotations: {
          'io.containerd.image.name': image.name,
          'org.opencontainers.image.ref.name': referenceTag(image.name),
        },
      },
    ],
  };

  const entries: TarEntry[] = [
    { type: 'file', path: 'oci-layout', data: json({ imageLayoutVersion: '1.0.0' }) },
    { type: 'file', path: 'index.json', data: json(index) },
    { type: 'directory', path: 'blobs' },
    { type: 'directory', path: 'blobs/sha256' },
  ];
  for (const [digest, data] of blobs) {
    entries.push({ type: 'file', path: `blobs/sha256/${digest.slice('sha256:'.length)}`, data });
  }
  return { archive: tarArchive(entries), manifestDigest: manifest.digest };
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}
