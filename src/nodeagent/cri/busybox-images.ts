/**
 * Images made offline from a static busybox binary (Debian's busybox-static: /bin/busybox), for
 * machines that reach no image registry: a `busybox` image laid out as Docker Hub's (every applet a
 * link in /bin, root and nobody in /etc/passwd, `sh` as the command) and a sandbox ("pause") image
 * that only sleeps. Both share one layer, so the runtime stores and unpacks it once.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { OciImage } from './oci-archive';
import type { TarEntry } from './tar';

export const DEFAULT_BUSYBOX_BINARY = '/bin/busybox';
export const BUSYBOX_IMAGE = 'docker.io/library/busybox:latest';
/** the sandbox image kubelet 1.20 uses by default (--pod-infra-container-image) */
export const PAUSE_IMAGE = 'k8s.gcr.io/pause:3.2';

const PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** the applet names a busybox binary provides (`busybox --list`) */
export function busyboxApplets(binary: string = DEFAULT_BUSYBOX_BINARY): string[] {
  return execFileSync(binary, ['--list'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim())
    .filter((name) => name !== '' && name !== 'busybox' && /^[\w.[\]-]+$/.test(name));
}

/** the root file system: the binary at /bin/busybox, each applet a symbolic link beside it */
export function busyboxLayer(binary: string = DEFAULT_BUSYBOX_BINARY): TarEntry[] {
  const entries: TarEntry[] = [
    { type: 'directory', path: 'bin' },
    { type: 'directory', path: 'dev' },
    { type: 'directory', path: 'etc' },
    { type: 'directory', path: 'home' },
    { type: 'directory', path: 'proc' },
    { type: 'directory', path: 'root', mode: 0o700 },
    { type: 'directory', path: 'sys' },
    { type: 'directory', path: 'tmp', mode: 0o1777 },
    { type: 'directory', path: 'usr' },
    { type: 'directory', path: 'usr/bin' },
    { type: 'directory', path: 'usr/sbin' },
    { type: 'directory', path: 'var' },
    { type: 'directory', path: 'var/www' },
    { type: 'file', path: 'etc/passwd', data: Buffer.from('root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n') },
    { type: 'file', path: 'etc/group', data: Buffer.from('root:x:0:\nnobody:x:65534:\n') },
    { type: 'file', path: 'bin/busybox', data: fs.readFileSync(binary), mode: 0o755 },
  ];
  for (const applet of busyboxApplets(binary)) {
    entries.push({ type: 'symlink', path: `bin/${applet}`, target: 'busybox' });
  }
  return entries;
}

export interface BusyboxImageOptions {
  binary?: string;
  name?: string;
}

/** the busybox image: `sh` by default, as Docker Hub's */
export function busyboxImage(options: BusyboxImageOptions = {}): OciImage {
  return {
    name: options.name ?? BUSYBOX_IMAGE,
    layers: [busyboxLayer(options.binary)],
    config: { env: [PATH_ENV], cmd: ['sh'] },
  };
}

/**
 * The sandbox image: its process holds the pod's namespaces and does nothing else. busybox `sleep`
 * as the pod's PID 1 ignores SIGTERM; runtimes stop sandboxes with SIGKILL, as they do kube's pause.
 */
export function pauseImage(options: BusyboxImageOptions = {}): OciImage {
  return {
    name: options.name ?? PAUSE_IMAGE,
    layers: [busyboxLayer(options.binary)],
    config: { env: [PATH_ENV], entrypoint: ['/bin/sleep', '2147483647'] },
  };
}

