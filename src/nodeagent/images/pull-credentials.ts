/**
 * The credentials of a pod's image pull secrets for one image (kubelet's credentialprovider
 * keyring, reduced): each secret's .dockerconfigjson (`{"auths": {...}}`) or .dockercfg entries
 * whose registry matches the image's, in secret order; `auth` (base64 user:password) is split into
 * username and password as kube does. The puller tries them in turn.
 */
import type { AuthConfig } from '../cri/generated/runtime/v1/AuthConfig';
import type { PullSecret } from '../types';
import { imageRegistry } from './image-reference';

interface DockerConfigEntry {
  username?: string;
  password?: string;
  auth?: string;
  identitytoken?: string;
  registrytoken?: string;
}

const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com']);

/** a config key (`https://index.docker.io/v1/`, `myregistry:5000/team`) as host and path prefix */
function parseKey(key: string): { host: string; path: string } {
  const bare = key.replace(/^[a-z]+:\/\//, '');
  const slash = bare.indexOf('/');
  let host = slash < 0 ? bare : bare.slice(0, slash);
  let path = slash < 0 ? '' : bare.slice(slash + 1).replace(/\/+$/, '');
  if (DOCKER_HUB_ALIASES.has(host)) {
    host = 'docker.io';
    if (path === 'v1' || path === 'v2') path = '';
  }
  return { host, path };
}

function entries(secret: PullSecret): Record<string, DockerConfigEntry> {
  try {
    const json = secret.data['.dockerconfigjson'];
    if (json) return (JSON.parse(json.toString('utf8')) as { auths?: Record<string, DockerConfigEntry> }).auths ?? {};
    const legacy = secret.data['.dockercfg'];
    if (legacy) return JSON.parse(legacy.toString('utf8')) as Record<string, DockerConfigEntry>;
  } catch {
    // kube skips a secret it cannot read
  }
  return {};
}

/** the AuthConfigs to try for `image`, most specific path first; empty when none matches */
export function credentialsForImage(image: string, secrets: PullSecret[]): AuthConfig[] {
  const registry = imageRegistry(image);
  const repository = (registry === 'docker.io' && !image.startsWith('docker.io/') ? image : image.slice(image.indexOf('/') + 1)).replace(/[:@].*$/, '');
  const found: { auth: AuthConfig; specificity: number }[] = [];
  for (const secret of secrets) {
    for (const [key, entry] of Object.entries(entries(secret))) {
      const { host, path } = parseKey(key);
      if (host !== registry) continue;
      if (path !== '' && repository !== path && !repository.startsWith(`${path}/`)) continue;
      let username = entry.username ?? '';
      let password = entry.password ?? '';
      if (entry.auth && username === '' && password === '') {
        const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        if (colon > 0) {
          username = decoded.slice(0, colon);
          password = decoded.slice(colon + 1);
        }
      }
      found.push({
        auth: { username, password, serverAddress: key, identityToken: entry.identitytoken ?? '', registryToken: entry.registrytoken ?? '' },
        specificity: path.length,
      });
    }
  }
  return found.sort((a, b) => b.specificity - a.specificity).map((f) => f.auth);
}
