/**
 * Image references as kubelet reads them (pkg/kubelet/images applyDefaultImageTag, and the
 * registry matching of pkg/credentialprovider): a reference without tag or digest gets `:latest`,
 * and Docker Hub's short names belong to docker.io.
 */

/** the reference with `:latest` appended when it names neither a tag nor a digest; throws when it does not parse */
export function applyDefaultImageTag(image: string): string {
  const at = image.indexOf('@');
  const name = at < 0 ? image : image.slice(0, at);
  const digest = at < 0 ? '' : image.slice(at + 1);
  const lastSlash = name.lastIndexOf('/');
  const colon = name.indexOf(':', lastSlash + 1);
  const repository = colon < 0 ? name : name.slice(0, colon);
  const tag = colon < 0 ? '' : name.slice(colon + 1);
  const [first, ...rest] = repository.split('/');
  const host = rest.length > 0 && (first.includes('.') || first.includes(':') || first === 'localhost') ? first : '';
  const path = host === '' ? repository : rest.join('/');
  const valid =
    path !== '' &&
    path.split('/').every((part) => /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/.test(part)) &&
    (host === '' || /^[a-zA-Z0-9.-]+(:[0-9]+)?$/.test(host)) &&
    (colon < 0 || /^[\w][\w.-]{0,127}$/.test(tag)) &&
    (at < 0 || /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[0-9a-fA-F]{32,}$/.test(digest));
  if (!valid) throw new Error(`couldn't parse image reference "${image}": invalid reference format`);
  return colon < 0 && at < 0 ? `${image}:latest` : image;
}

/** the registry host of a reference: its first component when that looks like a host, else docker.io */
export function imageRegistry(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  if (first.includes('.') || first.includes(':') || first === 'localhost') return first === 'index.docker.io' ? 'docker.io' : first;
  return 'docker.io';
}

/** whether the tag is latest or absent (kube defaults imagePullPolicy to Always then) */
export function isLatestOrUntagged(image: string): boolean {
  if (image.includes('@')) return false;
  const tail = image.slice(image.lastIndexOf('/') + 1);
  const colon = tail.indexOf(':');
  return colon < 0 || tail.slice(colon + 1) === 'latest';
}
