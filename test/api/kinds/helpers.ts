/** test helpers for kind declarations (not a test file) */
import { builtinKinds } from '../../../src/api/kinds';
import type { KindDefinition, KubeObject } from '../../../src/api/kind';

export function kind(group: string, version: string, k: string): KindDefinition {
  const found = builtinKinds().find((d) => d.group === group && d.version === version && d.kind === k);
  if (!found) throw new Error(`no kind ${group}/${version}/${k}`);
  return found;
}

/** defaults, prepareForCreate and validate, as the registry runs them on create */
export function create(def: KindDefinition, obj: KubeObject) {
  def.strategy.defaults(obj);
  def.strategy.prepareForCreate?.(obj);
  return def.strategy.validate(obj);
}

export function fields(causes: Array<{ field?: string }>): string[] {
  return causes.map((c) => c.field ?? '');
}

export function podTemplate(labels: Record<string, string>, extra: Record<string, unknown> = {}) {
  return { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], ...extra } };
}

export function deployment(spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }), ...spec },
  };
}
