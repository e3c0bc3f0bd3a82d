/**
 * --vmodule: `pattern=N` pairs that set the verbosity of some modules above or below -v. klog's
 * modules are Go source files; Ballast's are its loggers' components: the `component` field each
 * part's child logger carries (storage, registry, audit, audit-log, flowcontrol, admission-webhooks,
 * aggregator, apiextensions, metrics, compactor, serviceaccounts, ...). As in klog, `*` matches any
 * run of characters and `?` one character, the first matching pair wins, and a pattern may end in
 * `.ts` or `.js` (ignored), so `storage=6` and `storage.ts=6` mean the same.
 */
export interface VModuleRule {
  readonly pattern: string;
  readonly verbosity: number;
}

/** parse a --vmodule value; throws Error with klog's wording on a bad one */
export function parseVModule(text: string): VModuleRule[] {
  const rules: VModuleRule[] = [];
  if (text.trim() === '') return rules;
  for (const pair of text.split(',')) {
    const eq = pair.indexOf('=');
    const pattern = pair.slice(0, eq).trim();
    const level = pair.slice(eq + 1).trim();
    if (eq <= 0 || pattern === '') throw new Error(`syntax error: expect comma-separated list of filename=N, got ${JSON.stringify(pair)}`);
    if (!/^\d+$/.test(level)) throw new Error(`invalid verbosity ${JSON.stringify(level)} for module ${JSON.stringify(pattern)}: expect a non-negative integer`);
    rules.push(Object.freeze({ pattern: pattern.replace(/\.(ts|js)$/, ''), verbosity: Number(level) }));
  }
  return rules;
}

/** the verbosity --vmodule gives a module, or undefined when no pattern matches */
export function moduleVerbosity(rules: readonly VModuleRule[], module: string): number | undefined {
  const name = module.replace(/\.(ts|js)$/, '');
  for (const r of rules) if (globMatch(r.pattern, name)) return r.verbosity;
  return undefined;
}

function globMatch(pattern: string, text: string): boolean {
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(text);
}
