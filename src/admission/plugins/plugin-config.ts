/**
 * What the optional plugins share: reading their section of --admission-control-config-file with
 * one-line errors naming the file, label-selector strings as maps (kube's
 * labels.ConvertSelectorToLabelsMap), and the namespace of a request.
 */
import type { KubeObject } from '../../api/kind';
import type { AdmissionPluginContext } from '../context';
import { CORE } from '../context';
import { AdmissionConfigError } from '../config-file';
import { ApiError } from '../../api/errors';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** a start-up error about a plugin's configuration: one line naming the plugin and the file it came from */
export function pluginConfigError(ctx: AdmissionPluginContext, plugin: string, why: string): Error {
  return ctx.configurationFile ? new AdmissionConfigError(ctx.configurationFile, `${plugin}: ${why}`) : new Error(`admission plugin ${plugin}: ${why}`);
}

/**
 * the plugin's configuration when it is an object of one of the accepted apiVersion/kind pairs
 * (undefined when there is none); anything else stops start-up
 */
export function typedConfiguration(ctx: AdmissionPluginContext, plugin: string, kind: string, apiVersions: readonly string[]): Obj | undefined {
  const c = ctx.configuration;
  if (c === undefined || c === null) return undefined;
  if (!isObj(c)) throw pluginConfigError(ctx, plugin, `expected a ${kind} object`);
  if (c.kind !== kind || typeof c.apiVersion !== 'string' || !apiVersions.includes(c.apiVersion)) {
    throw pluginConfigError(ctx, plugin, `expected kind ${kind} of apiVersion ${apiVersions[0]}, got ${String(c.kind)} of ${String(c.apiVersion)}`);
  }
  return c;
}

/** kube's labels.ConvertSelectorToLabelsMap: `a=b,c==d` as a map; throws the reason on anything else */
export function selectorToLabels(selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (selector.trim() === '') return out;
  for (const part of selector.split(',')) {
    const m = /^\s*([^=!\s]+)\s*==?\s*([^=!\s]*)\s*$/.exec(part);
    if (!m) throw new Error(`invalid selector: ${JSON.stringify(selector)}`);
    out[m[1]] = m[2];
  }
  return out;
}

/** kube's labels.Conflicts: a key both maps hold with different values */
export function labelsConflict(a: Record<string, string>, b: Record<string, string>): boolean {
  return Object.keys(a).some((k) => k in b && b[k] !== a[k]);
}

/** the request's namespace object, 404 NotFound in kube's words when it does not exist */
export async function requestNamespace(ctx: AdmissionPluginContext, name: string): Promise<KubeObject> {
  const ns = await ctx.objects.get(CORE('namespaces'), '', name);
  if (!ns) throw new ApiError(404, 'NotFound', `namespaces "${name}" not found`, { name, kind: 'namespaces' });
  return ns;
}

export function annotationsOf(o: KubeObject | undefined): Record<string, string> {
  const a = o?.metadata?.annotations;
  return isObj(a) ? (a as Record<string, string>) : {};
}
