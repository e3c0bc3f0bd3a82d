/**
 * `--feature-gates`: the gate names of kube 1.32 (which the server reports) and of 1.20 (spec 2,
 * part 9), each with its stage and default (feature-gates-data.ts). Every component takes the same
 * set. As kube does, an unknown name is refused, and so is a value other than the default for a
 * gate locked to its default (GA gates whose old code path is gone). Ballast does not change
 * behaviour by gate yet.
 */
import { knownFeatureGates } from './feature-gates-data';
import type { FeatureGateSpec } from './feature-gates-data';

export type { FeatureGateSpec, GateStage } from './feature-gates-data';

export const FEATURE_GATES: ReadonlyMap<string, FeatureGateSpec> = knownFeatureGates();

/** validator for --feature-gates, with kube's messages */
export function validateFeatureGates(value: unknown): string | undefined {
  const entries = Object.entries(value as Record<string, boolean>);
  const unknown = entries.filter(([name]) => !FEATURE_GATES.has(name)).map(([name]) => name);
  if (unknown.length) return `unrecognized feature gate: ${unknown.join(', ')}`;
  for (const [name, enabled] of entries) {
    const spec = FEATURE_GATES.get(name)!;
    if (spec.lockToDefault && enabled !== spec.default) {
      return `cannot set feature gate ${name} to ${enabled}, feature is locked to ${spec.default}`;
    }
  }
  return undefined;
}

/**
 * The gates `--help` lists, one a line, as kube-apiserver's help does: `Name=true|false (BETA -
 * default=true)`, alpha and beta ones only (GA and deprecated gates are accepted but not listed),
 * in Go's string order.
 */
export function featureGateHelpLines(): string[] {
  const lines: string[] = [];
  for (const [name, spec] of FEATURE_GATES) {
    if (spec.stage === 'GA' || spec.stage === 'DEPRECATED') continue;
    lines.push(`${name}=true|false (${spec.stage} - default=${spec.default})`);
  }
  return lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
