import pino from 'pino';
import type { Logger } from 'pino';
import { atTraceLocation, callSiteOf, dirHeader } from './logging/call-site';
import type { TraceLocation } from './logging/call-site';
import { LogFiles } from './logging/klog-files';
import { REDACTED, sensitivePaths } from './logging/sanitize';
import { levelForVerbosity, severityOfLevel } from './logging/severity';
import { moduleVerbosity } from './logging/vmodule';
import type { LoggingConfig } from './logging/config';

export type { LoggingConfig } from './logging/config';

/** the logging settings; everything but format and verbosity has klog's default when left out */
export interface LoggerOptions extends Partial<Omit<LoggingConfig, 'format' | 'verbosity'>> {
  /** `json`: one pino JSON object per line; `text`: one readable line per entry */
  format: 'text' | 'json';
  /** kube's -v: 0-3 info, 4-5 debug, 6 and up trace */
  verbosity: number;
  /** where standard error lines go (default: process.stderr) */
  write?: (line: string) => void;
  /** program name in --log-dir file names */
  program?: string;
}

const files = new WeakMap<Logger, LogFiles>();

/** the one root logger of a process; parts take children of it (a `component` child is a --vmodule module) */
export function createLogger(opts: LoggerOptions): Logger {
  const toStderr = opts.toStderr ?? true;
  const stderr = opts.write ?? ((line: string) => process.stderr.write(line));
  const sinks =
    toStderr ? undefined : new LogFiles({
      file: opts.file,
      dir: opts.dir,
      program: opts.program ?? 'ballast-apiserver',
      maxBytes: (opts.maxSizeMB ?? 1800) * 1024 * 1024,
      oneOutput: opts.oneOutput ?? false,
      skipLogHeaders: opts.skipLogHeaders ?? false,
      lineFormat: opts.format === 'json' ? 'one JSON object per line' : '<RFC 3339 time> <LEVEL> [dir/file.ts:line] message key=value ...',
    });
  const threshold = opts.stderrThreshold ?? 2;
  const alsoToStderr = opts.alsoToStderr ?? false;
  const skipHeaders = opts.skipHeaders ?? false;

  const destination = {
    write(chunk: string): void {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(chunk) as Record<string, unknown>;
      } catch {
        stderr(chunk);
        return;
      }
      const line = opts.format === 'json' ? chunk : formatTextEntry(entry, { skipHeaders });
      if (!sinks) {
        stderr(line);
        return;
      }
      const severity = severityOfLevel(Number(entry.level));
      sinks.write(severity, line);
      if (alsoToStderr || severity >= threshold) stderr(line);
    },
  };

  const vmodule = opts.vmodule ?? [];
  const logger = pino(
    {
      level: levelForVerbosity(opts.verbosity),
      ...(opts.format === 'text' ? { base: undefined } : {}),
      ...(opts.sanitize ? { redact: { paths: sensitivePaths(), censor: REDACTED } } : {}),
      ...(opts.addDirHeader || opts.backtraceAt ? { hooks: { logMethod: callSiteHook(Boolean(opts.addDirHeader), opts.backtraceAt) } } : {}),
      ...(vmodule.length > 0
        ? {
            onChild(child: Logger): void {
              const component = child.bindings().component;
              if (typeof component !== 'string') return;
              const v = moduleVerbosity(vmodule, component);
              if (v !== undefined) child.level = levelForVerbosity(v);
            },
          }
        : {}),
    },
    destination,
  );

  if (sinks) {
    files.set(logger, sinks);
    const timer = setInterval(() => sinks.flush(), Math.max(opts.flushFrequencyMs ?? 5000, 1));
    timer.unref();
    process.once('exit', () => {
      clearInterval(timer);
      sinks.close();
    });
  }
  if (opts.addDirHeader || opts.backtraceAt) {
    // so stack frames name src/**.ts lines rather than dist/**.js ones (see logging/call-site.ts)
    process.setSourceMapsEnabled(true);
  }
  return logger;
}

/** write out what a root logger's log files have buffered (--log-flush-frequency does this on a timer) */
export function flushLogger(logger: Logger): void {
  files.get(logger)?.flush();
}

/** a pino logMethod hook adding `caller` (--add-dir-header) and `backtrace` (--log-backtrace-at) */
function callSiteHook(addCaller: boolean, at: TraceLocation | undefined) {
  return function (this: Logger, args: unknown[], method: (...a: unknown[]) => void): void {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 30;
    const stack = new Error().stack;
    Error.stackTraceLimit = limit;
    const site = callSiteOf(stack);
    const extra: Record<string, string> = {};
    if (site && addCaller) extra.caller = dirHeader(site);
    if (site && at && atTraceLocation(site, at)) {
      const frames = (stack ?? '').split('\n').slice(1);
      const from = frames.findIndex((f) => f.includes(`${site.file}:${site.line}:`));
      extra.backtrace = frames.slice(Math.max(from, 0)).map((f) => f.trim()).join('\n');
    }
    if (Object.keys(extra).length === 0) {
      method.apply(this, args);
      return;
    }
    const [first, ...rest] = args;
    if (first instanceof Error) method.apply(this, [{ err: first, ...extra }, ...rest]);
    else if (first !== null && typeof first === 'object') method.apply(this, [{ ...(first as object), ...extra }, ...rest]);
    else method.apply(this, [extra, ...args]);
  };
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/**
 * Turn one pino JSON line into `2025-01-02T03:04:05.678Z INFO  message key=value ...`.
 * Errors keep their stack on the following lines so they stay readable.
 */
export function formatTextLine(json: string, opts: { skipHeaders?: boolean } = {}): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  return formatTextEntry(entry, opts);
}

/**
 * One entry as a text line. The header is the time, the level and, with --add-dir-header, the call
 * site (`dir/file.ts:N`); --skip-headers leaves the header out. A --log-backtrace-at stack follows
 * on indented lines, like an error's.
 */
export function formatTextEntry(entry: Record<string, unknown>, opts: { skipHeaders?: boolean } = {}): string {
  const { level, time, msg, err, caller, backtrace, ...fields } = entry;
  const parts: string[] = [];
  if (!opts.skipHeaders) {
    parts.push(typeof time === 'number' ? new Date(time).toISOString() : new Date().toISOString());
    parts.push((LEVEL_NAMES[level as number] ?? String(level)).padEnd(5));
    if (typeof caller === 'string') parts.push(`${caller}]`);
  }
  parts.push(msg === undefined ? '' : String(msg));
  for (const [k, v] of Object.entries(fields)) parts.push(`${k}=${formatValue(v)}`);
  let line = parts.filter((p) => p !== '').join(' ');
  if (err && typeof err === 'object') {
    const e = err as { message?: string; stack?: string };
    line += ` err=${formatValue(e.message ?? '')}`;
    if (e.stack) line += `\n${e.stack.replace(/^/gm, '    ')}`;
  }
  if (typeof backtrace === 'string') line += `\n${backtrace.replace(/^/gm, '    ')}`;
  return line + '\n';
}

function formatValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v);
}
