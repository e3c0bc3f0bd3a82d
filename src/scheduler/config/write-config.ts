/**
 * `--write-config-to`: the effective configuration as kube writes it: v1beta1 YAML with keys in
 * alphabetical order (kube goes through JSON, then YAML from a map), lists not indented under
 * their key, and known plugin args carrying their apiVersion and kind.
 */
import yaml from 'js-yaml';
import { hasArgsType } from './plugin-args';
import { CONFIG_API_VERSION } from './types';
import type { KubeSchedulerConfiguration } from './types';

function wire(cfg: KubeSchedulerConfiguration): Record<string, unknown> {
  return {
    ...cfg,
    profiles: cfg.profiles.map((p) => ({
      ...p,
      ...(p.pluginConfig && {
        pluginConfig: p.pluginConfig.map((pc) => ({
          name: pc.name,
          args: hasArgsType(pc.name) ? { apiVersion: CONFIG_API_VERSION, kind: `${pc.name}Args`, ...pc.args } : pc.args,
        })),
      }),
    })),
  };
}

/** keys in alphabetical order at every level */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sorted(v)]));
}

/** the YAML text `--write-config-to` writes; `configurationFromText` reads it back unchanged */
export function configurationYaml(cfg: KubeSchedulerConfiguration): string {
  // the JSON round trip drops undefined fields, as Go's omitempty does
  const plain = sorted(JSON.parse(JSON.stringify(wire(cfg))));
  return yaml.dump(plain, { seqNoIndent: true, lineWidth: -1, noRefs: true, quoteStyle: 'double' });
}
