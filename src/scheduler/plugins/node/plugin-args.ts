/**
 * Reading a plugin's pluginConfig `args` (KubeSchedulerConfiguration v1beta1, camelCase fields):
 * absent args are an empty object; anything but an object is refused as kube refuses args of the
 * wrong type.
 */

export type Args = Record<string, unknown>;

export function argsObject(args: unknown, kind: string): Args {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object' || Array.isArray(args)) throw new Error(`want args to be of type ${kind}, got ${Array.isArray(args) ? 'array' : typeof args}`);
  return args as Args;
}

/** a list of strings (absent is empty) */
export function stringList(args: Args, field: string, kind: string): string[] {
  const v = args[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new Error(`${kind}: ${field} must be a list of strings`);
  return v as string[];
}

/** a resource and its weight in a score (v1beta1 ResourceSpec) */
export interface ResourceSpec {
  name: string;
  weight: number;
}

/** `resources: [{name, weight}]`; the defaults (cpu 1, memory 1) when absent or empty, as v1beta1's defaulting */
export function resourceSpecs(args: Args, kind: string): ResourceSpec[] {
  const v = args.resources;
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) {
    return [
      { name: 'cpu', weight: 1 },
      { name: 'memory', weight: 1 },
    ];
  }
  if (!Array.isArray(v)) throw new Error(`${kind}: resources must be a list`);
  return v.map((r: { name?: unknown; weight?: unknown }) => ({ name: String(r?.name ?? ''), weight: Number(r?.weight ?? 0) }));
}

/** kube's answer when a NodeInfo carries no Node */
export const NODE_NOT_FOUND = 'node not found';
