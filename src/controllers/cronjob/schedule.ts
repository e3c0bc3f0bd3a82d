/**
 * CronJob schedules as kube 1.20's controller reads them (robfig/cron's ParseStandard): five cron
 * fields, the @yearly/@annually/@monthly/@weekly/@daily/@midnight/@hourly descriptors, and
 * `@every <duration>` (a constant delay, whole seconds, at least one second). The API server's
 * validation (src/api/kinds/batch/cron-schedule.ts) accepts the same, plus a `TZ=`/`CRON_TZ=`
 * prefix, which is honoured here too; without one, times are UTC.
 */
import { CronExpressionParser } from 'cron-parser';

export interface Schedule {
  /** the first activation strictly after `after` (ms since the epoch) */
  next(after: number): number;
}

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration, in milliseconds; undefined when it does not parse */
export function parseGoDuration(text: string): number | undefined {
  const re = /([0-9]*\.?[0-9]*)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1] === '' || m[1] === '.') return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched = re.lastIndex;
  }
  return matched === text.length && text.length > 0 ? total : undefined;
}

/** parse a schedule; throws with robfig's wording when it does not parse */
export function parseSchedule(text: string): Schedule {
  let spec = text.trim();
  let tz = 'UTC';
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    tz = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
    spec = space < 0 ? '' : spec.slice(space + 1).trim();
  }
  if (spec.length === 0) throw new Error('empty spec string');
  if (spec.startsWith('@every ')) {
    const ms = parseGoDuration(spec.slice('@every '.length).trim());
    if (ms === undefined) throw new Error(`failed to parse duration ${spec}`);
    // robfig's Every: truncated to whole seconds, at least one; Next rounds down to the second, then adds it
    const delay = Math.max(1000, Math.floor(ms / 1000) * 1000);
    return { next: (after) => Math.floor(after / 1000) * 1000 + delay };
  }
  if (spec.startsWith('@')) {
    const expanded = DESCRIPTORS[spec];
    if (!expanded) throw new Error(`unrecognized descriptor: ${spec}`);
    spec = expanded;
  }
  const fields = spec.split(/\s+/);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const expr = fields.join(' ');
  CronExpressionParser.parse(expr, { tz }); // throws on a bad field
  return {
    next(after) {
      return CronExpressionParser.parse(expr, { currentDate: new Date(after), tz }).next().getTime();
    },
  };
}

export const TOO_MANY_MISSED =
  'too many missed start time (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.';

export interface ScheduleInputs {
  schedule: string;
  /** status.lastScheduleTime, else metadata.creationTimestamp (ms) */
  lastScheduleTime?: number;
  creationTime: number;
  startingDeadlineSeconds?: number | null;
}

/**
 * getRecentUnmetScheduleTimes (kube 1.20's v1 controller): every activation after the last
 * scheduled time (or the creation) up to now, starting no earlier than now minus
 * startingDeadlineSeconds. More than 100 is an error: the controller has been away too long.
 */
export function unmetScheduleTimes(o: ScheduleInputs, now: number): number[] {
  let sched: Schedule;
  try {
    sched = parseSchedule(o.schedule);
  } catch (err) {
    throw new Error(`unparseable schedule: ${o.schedule} : ${err instanceof Error ? err.message : String(err)}`);
  }
  let earliest = o.lastScheduleTime ?? o.creationTime;
  if (o.startingDeadlineSeconds !== undefined && o.startingDeadlineSeconds !== null) {
    const deadline = now - o.startingDeadlineSeconds * 1000;
    if (deadline > earliest) earliest = deadline;
  }
  if (earliest > now) return [];
  const starts: number[] = [];
  for (let t = sched.next(earliest); t <= now; t = sched.next(t)) {
    starts.push(t);
    if (starts.length > 100) throw new Error(TOO_MANY_MISSED);
  }
  return starts;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's time.RFC1123Z layout, in UTC: `Mon, 02 Jan 2006 15:04:05 +0000` */
export function formatRfc1123z(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}
