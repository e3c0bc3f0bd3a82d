/**
 * `--feature-gates`: the gate names of kube 1.32 (which the server reports) and of 1.20 (spec 2,
 * part 9), each with its stage and default (feature-gates-data.ts). Every component takes the same
 * set. As kube does, an unknown name is refused, and so is a value other than the default for a
 * gate locked to its default (GA gates whose old code path is gone). The resolved gates are a
 * FeatureGates object in the server's config; BALLAST_GATED lists the gates Ballast acts on.
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

/**
 * The gates whose value changes what Ballast does, with what turning them off does. Every other
 * gate is accepted and reported but changes nothing.
 */
export const BALLAST_GATED: Readonly<Record<string, string>> = Object.freeze({
  APIPriorityAndFairness: 'off: the plain in-flight limits instead of API Priority and Fairness (as --enable-priority-and-fairness=false)',
  APIListChunking: 'off: list requests ignore limit and continue and answer the whole collection',
  APIResponseCompression: 'off: responses are never gzip-compressed',
  EphemeralContainers: 'off: pods/ephemeralcontainers answers 404',
  RemainingItemCount: 'off: list pages carry no metadata.remainingItemCount',
  ServiceAccountTokenNodeBinding: 'off: a TokenRequest bound to a Node is a 400',
  ServerSideApply: 'off: PATCH with application/apply-patch+yaml answers 415 Unsupported Media Type',
  WatchBookmark: 'off: watches send no BOOKMARK events even when allowWatchBookmarks=true (locked on, as in kube: settable only in code)',
});

/** the resolved --feature-gates: kube's default for each gate, overridden by the flag */
export class FeatureGates {
  readonly #overrides: ReadonlyMap<string, boolean>;

  /** throws TypeError for a gate name nobody knows (the flag's validator words it for users) */
  constructor(overrides: Readonly<Record<string, boolean>> = {}) {
    for (const name of Object.keys(overrides)) if (!FEATURE_GATES.has(name)) throw new TypeError(`unknown feature gate ${name}`);
    this.#overrides = new Map(Object.entries(overrides));
    Object.freeze(this);
  }

  /** whether the gate is on; an unknown name is a programming error (TypeError) */
  enabled(name: string): boolean {
    const spec = FEATURE_GATES.get(name);
    if (!spec) throw new TypeError(`unknown feature gate ${name}`);
    return this.#overrides.get(name) ?? spec.default;
  }

  /** the gates set on the command line, as given */
  overrides(): Readonly<Record<string, boolean>> {
    return Object.fromEntries(this.#overrides);
  }
}

/** every gate at its default */
export const DEFAULT_FEATURE_GATES = new FeatureGates();
