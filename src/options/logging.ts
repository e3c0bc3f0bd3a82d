import path from 'node:path';
import { oneOf, option } from './define';
import { FlagError } from './types';
import { parseTraceLocation } from '../server/logging/call-site';
import { parseVModule } from '../server/logging/vmodule';
import type { LoggingConfig } from '../server/logging/config';
import type { ParsedOptions } from './parse';
import type { OptionGroup } from './types';
import { KUBE_COMPAT } from '../server/version';

/** the one value --show-hidden-metrics-for-version takes: the minor release before the one served */
const PREVIOUS_MINOR = `${KUBE_COMPAT.major}.${Number(KUBE_COMPAT.minor) - 1}`;

/** options every component takes: help, version, and the klog-style logging flags (spec 2, 1.1) */
export const globalOptions: OptionGroup = Object.freeze({
  title: 'Global flags',
  options: [
    option('help', 'bool', 'show this help and exit', { short: 'h', supported: true }),
    option('version', 'version', 'print the version and exit (`--version=raw` prints the full version record as JSON)', { supported: true }),
  ],
});

export const loggingOptions: OptionGroup = Object.freeze({
  title: 'Logging flags',
  options: [
    option('v', 'level', 'log verbosity: 0 logs info and above, 4 adds debug messages (each request), 6 and up adds trace messages', {
      short: 'v',
      default: '0',
      supported: true,
    }),
    option('logging-format', 'string', 'log line format: "text" (one readable line per entry) or "json" (one JSON object per line)', {
      default: 'text',
      supported: true,
      validate: oneOf('text', 'json'),
    }),
    option('vmodule', 'moduleSpec', 'per-module verbosity as comma-separated pattern=N pairs; a module is a logger component (storage, registry, audit, flowcontrol, admission-webhooks, aggregator, apiextensions, metrics, compactor, serviceaccounts, ...), patterns take * and ?, a .ts suffix is ignored, the first match wins', {
      supported: true,
      validate: (v) => problem(() => parseVModule(String(v))),
    }),
    option('add-dir-header', 'bool', 'put the caller\'s dir/file.ts:line (TypeScript source position) in each text log line header', { supported: true }),
    option('alsologtostderr', 'bool', 'write logs to standard error as well as to files', { supported: true }),
    option('logtostderr', 'bool', 'write logs to standard error only; false writes them to --log-file or the files of --log-dir (default: the temporary directory)', { default: 'true', supported: true }),
    option('log-backtrace-at', 'traceLocation', 'log a stack trace with the entry logged at file:N, a TypeScript source position such as apiserver.ts:120 (source maps map dist/ to src/)', {
      default: ':0',
      supported: true,
      validate: (v) => problem(() => parseTraceLocation(String(v))),
    }),
    option('log-dir', 'string', 'with --logtostderr=false, write <program>.<host>.<user>.log.<SEVERITY>.<date>-<time>.<pid> files (INFO, WARNING, ERROR, each with the entries at or above it) and <program>.<SEVERITY> symlinks here', { supported: true }),
    option('log-file', 'string', 'with --logtostderr=false, write every entry to this file (--log-dir is then unused)', { supported: true }),
    option('log-file-max-size', 'uint', 'largest log file size in megabytes: a --log-dir file is followed by a new one, a --log-file starts afresh; 0 means no limit', { default: '1800', supported: true }),
    option('log-flush-frequency', 'duration', 'longest time log file writes stay buffered (they are also written at exit)', { default: '5s', supported: true }),
    option('one-output', 'bool', 'write each entry only to its own severity\'s file', { supported: true }),
    option('skip-headers', 'bool', 'leave out the header (time, level, caller) of text log lines', { supported: true }),
    option('skip-log-headers', 'bool', 'leave out the header block at the top of new log files', { supported: true }),
    option('stderrthreshold', 'severity', 'with --logtostderr=false, entries at or above this severity (INFO, WARNING, ERROR, FATAL or 0-3) also go to standard error', { default: '2', supported: true }),
    option('experimental-logging-sanitization', 'bool', 'redact fields named like secrets (password, token, key, secret, authorization, bearer, cookie and their common variants) in log entries, up to two levels deep', { supported: true }),
  ],
});

function problem(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** the logging settings from parsed flags */
export function loggingConfig(parsed: ParsedOptions): LoggingConfig {
  const flushFrequencyMs = parsed.number('log-flush-frequency') ?? 5000;
  if (flushFrequencyMs <= 0) throw new FlagError('--log-flush-frequency must be positive');
  const file = parsed.string('log-file') || undefined;
  const dir = parsed.string('log-dir') || undefined;
  return Object.freeze({
    format: parsed.string('logging-format') === 'json' ? ('json' as const) : ('text' as const),
    verbosity: parsed.number('v') ?? 0,
    vmodule: Object.freeze(parseVModule(parsed.string('vmodule') ?? '')),
    toStderr: parsed.bool('logtostderr'),
    alsoToStderr: parsed.bool('alsologtostderr'),
    stderrThreshold: parsed.number('stderrthreshold') ?? 2,
    file: file && path.resolve(file),
    dir: dir && path.resolve(dir),
    maxSizeMB: parsed.number('log-file-max-size') ?? 1800,
    oneOutput: parsed.bool('one-output'),
    skipHeaders: parsed.bool('skip-headers'),
    skipLogHeaders: parsed.bool('skip-log-headers'),
    addDirHeader: parsed.bool('add-dir-header'),
    flushFrequencyMs,
    backtraceAt: parseTraceLocation(parsed.string('log-backtrace-at') ?? ':0'),
    sanitize: parsed.bool('experimental-logging-sanitization'),
  });
}

/** general process options of spec 2, 1.1 (profiling, cloud provider, HTTP/2) */
export const generalOptions: OptionGroup = Object.freeze({
  title: 'General flags',
  options: [
    option('profiling', 'bool', 'serve profiling data under /debug/pprof/: profile?seconds=N is a CPU profile in V8 .cpuprofile JSON (not pprof), heap a V8 heap snapshot', {
      default: 'true',
      supported: true,
    }),
    option('contention-profiling', 'bool', 'also profile lock contention, when profiling is on (Node has no lock contention profile: accepted, no effect)'),
    option('permit-port-sharing', 'bool', 'bind with address reuse so several servers can share one address and port', { default: 'false' }),
    option('http2-max-streams-per-connection', 'int', 'concurrent streams offered to each HTTP/2 client (ALPN h2); 0 is Go\'s default, 250', { supported: true }),
    option('show-hidden-metrics-for-version', 'string', `the previous minor release (${PREVIOUS_MINOR}), whose hidden metrics would be shown again; any other value stops start-up, as in kube (Ballast hides no metric, so it shows nothing more)`, {
      supported: true,
      validate: (v) =>
        v === '' || v === PREVIOUS_MINOR ? undefined : `must be omitted or have the value '${PREVIOUS_MINOR}'. Only the previous minor version is allowed`,
    }),
    option('azure-container-registry-config', 'string', 'file with the container registry configuration'),
    option('cloud-config', 'string', 'cloud provider configuration file; empty means none'),
    option('cloud-provider', 'string', 'cloud provider; empty means none'),
  ],
});
