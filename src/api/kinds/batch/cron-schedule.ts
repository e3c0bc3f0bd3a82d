/**
 * CronJob schedule syntax as kube accepts it (robfig/cron's standard parser): five fields, the
 * @yearly/@annually/@monthly/@weekly/@daily/@midnight/@hourly macros, `@every <duration>`, and an
 * optional `TZ=`/`CRON_TZ=` prefix. Field syntax is checked with cron-parser.
 */
import type { CronExpressionParser } from 'cron-parser';
import { lazy } from '../../../util/lazy';

/** cron-parser (with luxon, 0.4 MB of JavaScript) on the first CronJob, not at every start */
const cronParser = lazy(() => (require('cron-parser') as { CronExpressionParser: typeof CronExpressionParser }).CronExpressionParser);

const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** Go's time.ParseDuration grammar: `1h30m`, `90s`, `1.5h` */
const GO_DURATION = /^([0-9]*(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$/;

/** the problem with a schedule, worded like robfig/cron; undefined when it parses */
export function cronScheduleError(schedule: string): string | undefined {
  let spec = schedule.trim();
  if (spec.length === 0) return 'empty spec string';
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const tz = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
    if (!isValidTimeZone(tz)) return `provided bad location ${tz}: unknown time zone ${tz}`;
    spec = space < 0 ? '' : spec.slice(space + 1).trim();
  }
  if (spec.startsWith('@')) {
    if (spec.startsWith('@every ')) {
      const d = spec.slice('@every '.length).trim();
      return GO_DURATION.test(d) && d !== '0' ? undefined : `failed to parse duration ${spec}: time: invalid duration "${d}"`;
    }
    return MACROS.has(spec) ? undefined : `unrecognized descriptor: ${spec}`;
  }
  const fields = spec.split(/\s+/).filter((f) => f.length > 0);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  try {
    cronParser().parse(fields.join(' '));
    return undefined;
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    // robfig does not check that a day exists in a month (`0 0 31 2 *` parses and never fires)
    if (/day of month/i.test(msg)) return undefined;
    return msg;
  }
}

/** an IANA zone name the runtime knows; `Local` is refused as kube refuses it */
export function isValidTimeZone(tz: string): boolean {
  if (!tz || tz.toLowerCase() === 'local') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
