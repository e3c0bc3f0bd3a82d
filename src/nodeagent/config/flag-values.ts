/**
 * kubelet's own flag value syntaxes: `signal<quantity` maps (--eviction-hard, --eviction-soft),
 * `name:value` multimaps (--manifest-url-header) and taints (--register-with-taints). Each has a
 * parser for the values and a checker the option tables use to refuse a bad flag at parse time.
 */
import type { OptionValue } from '../../options/types';

/** `memory.available<100Mi` items into a map; throws with kube's wording for an item without `<` */
export function parseLangleMap(items: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    if (item === '') continue;
    const at = item.indexOf('<');
    if (at < 0) throw new Error(`malformed pair, expect string<string`);
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return out;
}

/** `name:value` items into name -> values, values of one name in the given order */
export function parseColonMultimap(items: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const group of items) {
    for (const pair of group.split(',')) {
      if (pair.trim() === '') continue;
      const at = pair.indexOf(':');
      if (at < 0) throw new Error(`malformed pair, expect string:string`);
      const name = pair.slice(0, at).trim();
      (out[name] ??= []).push(pair.slice(at + 1).trim());
    }
  }
  return out;
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** `key=value:Effect` or `key:Effect` (kube's taint spec), as kube's ParseTaint words its errors */
export function parseTaint(spec: string): Taint {
  const colon = spec.lastIndexOf(':');
  if (colon < 0) throw new Error(`invalid taint spec: ${spec}`);
  const effect = spec.slice(colon + 1);
  if (!EFFECTS.includes(effect)) {
    throw new Error(`invalid taint effect: ${effect}, unsupported taint effect`);
  }
  const kv = spec.slice(0, colon);
  const eq = kv.indexOf('=');
  const key = eq < 0 ? kv : kv.slice(0, eq);
  if (key === '' || !/^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(key)) {
    throw new Error(`invalid taint spec: ${spec}`);
  }
  return eq < 0 ? { key, effect: effect as Taint['effect'] } : { key, value: kv.slice(eq + 1), effect: effect as Taint['effect'] };
}

const problemOf = (check: () => unknown): string | undefined => {
  try {
    check();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
};

export const langleMapProblem = (v: OptionValue): string | undefined => problemOf(() => parseLangleMap(v as string[]));
export const colonMultimapProblem = (v: OptionValue): string | undefined => problemOf(() => parseColonMultimap(v as string[]));
export const taintProblem = (v: OptionValue): string | undefined => problemOf(() => (v as string[]).filter((s) => s !== '').forEach(parseTaint));
