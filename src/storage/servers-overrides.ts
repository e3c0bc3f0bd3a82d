/**
 * --etcd-servers-overrides entries: `group/resource#url1;url2`, the core group written as an empty
 * group (`/events`). Parsed without opening anything, so a bad entry is a flag error at start-up.
 */
import { API_KEY_ROOT } from './prefixed-store';
import { storeUrlProblem } from './store-url';

export interface ServersOverride {
  /** '' for the core group */
  readonly group: string;
  readonly resource: string;
  /** the storage URL of the resource's store (one, as for --etcd-servers) */
  readonly url: string;
  /** the API key prefix the resource's objects live under: `/registry/<group or core>/<resource>/` */
  readonly keyPrefix: string;
}

/** kube's wording for a malformed entry */
const FORMAT = 'must be of format: group/resource#servers, where servers are URLs, semicolon separated';

/** one entry, or a problem that names it (without the flag name) */
export function parseServersOverride(entry: string): ServersOverride {
  const tokens = entry.split('#');
  if (tokens.length !== 2) throw new Error(`invalid entry "${entry}", ${FORMAT}`);
  const parts = tokens[0].split('/');
  if (parts.length !== 2 || parts[1] === '') throw new Error(`invalid entry "${entry}", ${FORMAT}`);
  const [group, resource] = parts;
  const urls = tokens[1].split(';').filter((u) => u !== '');
  if (urls.length === 0) throw new Error(`invalid entry "${entry}", ${FORMAT}`);
  if (new Set(urls).size > 1) throw new Error(`entry "${entry}" names ${urls.length} servers; a resource is kept in one storage URL in Ballast`);
  const problem = storeUrlProblem(urls[0]);
  if (problem) throw new Error(`entry "${entry}": storage URL ${urls[0]}: ${problem}`);
  return { group, resource, url: urls[0], keyPrefix: `${API_KEY_ROOT}/${group || 'core'}/${resource}/` };
}

/** every entry of the flag (repeated and comma-separated values alike); empty entries are skipped */
export function parseServersOverrides(entries: readonly string[]): ServersOverride[] {
  return entries.map((e) => e.trim()).filter((e) => e !== '').map(parseServersOverride);
}

/** why the entries cannot be used, or undefined (the option table's check) */
export function serversOverridesProblem(entries: readonly string[]): string | undefined {
  try {
    parseServersOverrides(entries);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
