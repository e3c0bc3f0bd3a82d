import pkg from '../../package.json';
import type { VersionInfo } from '../http/version';

export type { VersionInfo };

/**
 * The version Ballast reports: its own release, and the Kubernetes API level it serves in the shape
 * of kube's version.Info (what `GET /version` returns and `kubectl version` prints).
 */

/** the Kubernetes release whose clients Ballast targets (kubectl 1.32; the 1.20 API forms are served too) */
export const KUBE_COMPAT = Object.freeze({ major: '1', minor: '32', patch: '0' });

/** Ballast's own version, from package.json */
export function ballastVersion(): string {
  // tsc copies package.json beside the compiled tree (dist/package.json), so this works built or not
  return pkg.version;
}

const GO_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };

/** the version.Info served at /version: a kube version with Ballast's release as build metadata */
export function versionInfo(): VersionInfo {
  const own = ballastVersion();
  return {
    major: KUBE_COMPAT.major,
    minor: KUBE_COMPAT.minor,
    // semver build metadata (like k3s's `v1.32.0+k3s1`) keeps version parsers in clients happy
    gitVersion: `v${KUBE_COMPAT.major}.${KUBE_COMPAT.minor}.${KUBE_COMPAT.patch}+ballast.${own}`,
    gitCommit: '',
    gitTreeState: '',
    buildDate: '',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
  };
}
