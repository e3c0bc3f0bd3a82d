/**
 * CRD `pattern`s are Go regular expressions (RE2 syntax: `(?i)` flags, `\z`, `[[:alpha:]]`, no
 * look-around or back-references), matched anywhere in the value as Go's regexp.MatchString does.
 * JavaScript's RegExp reads many of them differently or refuses them, so they are compiled with
 * re2js, the JavaScript port of RE2. Compiled patterns are cached: a schema's few patterns are
 * checked on every write of its objects.
 */
import type { RE2JS } from 're2js';
import { lazy } from '../../../util/lazy';
import { boundedMemo } from '../../../util/memo';

/** re2js (0.3 MB of JavaScript) on the first pattern, not at every start */
const re2 = lazy(() => (require('re2js') as { RE2JS: typeof RE2JS }).RE2JS);

const compile = boundedMemo(4096, (pattern: string): RE2JS | Error => {
  try {
    return re2().compile(pattern);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
});

/** Go's parse error for an invalid pattern (`error parsing regexp: ...`), or undefined when it compiles */
export function goRegexpError(pattern: string): string | undefined {
  const compiled = compile(pattern);
  return compiled instanceof Error ? compiled.message : undefined;
}

/** regexp.MatchString: does the pattern match somewhere in value? An invalid pattern matches nothing. */
export function goRegexpMatches(pattern: string, value: string): boolean {
  const compiled = compile(pattern);
  return !(compiled instanceof Error) && compiled.matcher(value).find();
}
