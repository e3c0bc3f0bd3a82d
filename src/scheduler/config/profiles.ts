/**
 * A profile resolved against its provider's defaults, as kube 1.20 merges them (Plugins.Apply):
 * per extension point, the defaults minus the profile's disabled ones (`*` drops them all), then
 * the profile's enabled ones appended in their order. Score weights of 0 or unset count as 1.
 */
import type { FeatureGates } from '../../options/feature-gates';
import { defaultArgs, hasArgsType } from './plugin-args';
import type { Args } from './plugin-args';
import type { PluginLists } from './providers';
import { ConfigError, EXTENSION_POINTS } from './types';
import type { ExtensionPoint, KubeSchedulerProfile, PluginRef, PluginSet, SchedulerProfile } from './types';

/** kube's framework names each point's plugin interface so in its errors */
const INTERFACE_NAMES: Record<ExtensionPoint, string> = {
  queueSort: 'QueueSortPlugin',
  preFilter: 'PreFilterPlugin',
  filter: 'FilterPlugin',
  postFilter: 'PostFilterPlugin',
  preScore: 'PreScorePlugin',
  score: 'ScorePlugin',
  reserve: 'ReservePlugin',
  permit: 'PermitPlugin',
  preBind: 'PreBindPlugin',
  bind: 'BindPlugin',
  postBind: 'PostBindPlugin',
};

/** kube's mergePluginSets */
export function mergePluginSet(defaults: readonly PluginRef[], custom: PluginSet | undefined): PluginRef[] {
  const disabled = new Set((custom?.disabled ?? []).map((p) => p.name));
  const kept = disabled.has('*') ? [] : defaults.filter((p) => !disabled.has(p.name));
  return [...kept.map((p) => ({ ...p })), ...(custom?.enabled ?? []).map((p) => ({ ...p }))];
}

/**
 * Resolve one profile: merged plugins (a plugin twice at one point is kube's framework error) and
 * the args of every plugin it runs that has an args type (given ones first, defaults otherwise).
 */
export function resolveProfile(profile: KubeSchedulerProfile, base: PluginLists, gates: FeatureGates): SchedulerProfile {
  const plugins = {} as Record<ExtensionPoint, PluginRef[]>;
  for (const point of EXTENSION_POINTS) {
    const merged = mergePluginSet(base[point], profile.plugins?.[point]);
    const seen = new Set<string>();
    plugins[point] = merged.map((p) => {
      if (seen.has(p.name)) {
        throw new ConfigError(
          `initializing profiles: creating profile for scheduler name ${profile.schedulerName}: plugin "${p.name}" already registered as "${INTERFACE_NAMES[point]}"`,
        );
      }
      seen.add(p.name);
      return point === 'score' ? { name: p.name, weight: p.weight || 1 } : { name: p.name };
    });
  }
  return { schedulerName: profile.schedulerName, plugins, pluginConfig: pluginArgs(profile.pluginConfig ?? [], plugins, gates) };
}

/** the given args by plugin, plus defaulted args for every enabled plugin with an args type */
export function pluginArgs(
  given: ReadonlyArray<{ name: string; args?: Args }>,
  plugins: Record<ExtensionPoint, PluginRef[]>,
  gates: FeatureGates,
): Record<string, Args> {
  const out: Record<string, Args> = {};
  for (const pc of given) {
    out[pc.name] = hasArgsType(pc.name) ? defaultArgs(pc.name, pc.args, gates) : structuredClone(pc.args ?? {});
  }
  for (const point of EXTENSION_POINTS) {
    for (const p of plugins[point]) {
      if (!(p.name in out) && hasArgsType(p.name)) out[p.name] = defaultArgs(p.name, undefined, gates);
    }
  }
  return out;
}
