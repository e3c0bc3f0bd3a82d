import pino from 'pino';
import type { Logger } from 'pino';

export interface LoggerOptions {
  /** `json`: one pino JSON object per line; `text`: one readable line per entry */
  format: 'text' | 'json';
  /** kube's -v: 0-3 info, 4-5 debug, 6 and up trace */
  verbosity: number;
  /** where lines go (default: standard error, like kube components) */
  write?: (line: string) => void;
}

/** the one root logger of a process; parts take children of it */
export function createLogger(opts: LoggerOptions): Logger {
  const level = opts.verbosity >= 6 ? 'trace' : opts.verbosity >= 4 ? 'debug' : 'info';
  const write = opts.write ?? ((line: string) => process.stderr.write(line));
  if (opts.format === 'json') {
    return pino({ level }, { write });
  }
  return pino({ level, base: undefined }, { write: (chunk: string) => write(formatTextLine(chunk)) });
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/**
 * Turn one pino JSON line into `2025-01-02T03:04:05.678Z INFO  message key=value ...`.
 * Errors keep their stack on the following lines so they stay readable.
 */
export function formatTextLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { level, time, msg, err, ...fields } = entry;
  const when = typeof time === 'number' ? new Date(time).toISOString() : new Date().toISOString();
  const levelName = (LEVEL_NAMES[level as number] ?? String(level)).padEnd(5);
  const parts = [when, levelName, msg === undefined ? '' : String(msg)];
  for (const [k, v] of Object.entries(fields)) parts.push(`${k}=${formatValue(v)}`);
  let line = parts.filter((p) => p !== '').join(' ');
  if (err && typeof err === 'object') {
    const e = err as { message?: string; stack?: string };
    line += ` err=${formatValue(e.message ?? '')}`;
    if (e.stack) line += `\n${e.stack.replace(/^/gm, '    ')}`;
  }
  return line + '\n';
}

function formatValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v);
}
