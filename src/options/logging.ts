import { oneOf, option } from './define';
import type { OptionGroup } from './types';

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
    option('vmodule', 'moduleSpec', 'per-file verbosity as comma-separated pattern=N pairs'),
    option('add-dir-header', 'bool', 'put the source directory in each log line header'),
    option('alsologtostderr', 'bool', 'write logs to standard error in addition to files'),
    option('logtostderr', 'bool', 'write logs to standard error rather than files (Ballast always logs to standard error)', { default: 'true' }),
    option('log-backtrace-at', 'traceLocation', 'print a stack trace when a log call is made at file:N', { default: ':0' }),
    option('log-dir', 'string', 'directory for log files, when not empty'),
    option('log-file', 'string', 'log file, when not empty'),
    option('log-file-max-size', 'uint', 'largest log file size in megabytes; 0 means no limit', { default: '1800' }),
    option('log-flush-frequency', 'duration', 'longest time between two log flushes', { default: '5s' }),
    option('one-output', 'bool', 'write each entry only at its own severity level'),
    option('skip-headers', 'bool', 'leave out the header prefix of log lines'),
    option('skip-log-headers', 'bool', 'leave out headers when opening log files'),
    option('stderrthreshold', 'severity', 'entries at or above this severity go to standard error', { default: '2' }),
    option('experimental-logging-sanitization', 'bool', 'keep fields marked sensitive (passwords, keys, tokens) out of logs; experimental and may be slow'),
  ],
});

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
    option('show-hidden-metrics-for-version', 'string', 'earlier minor release (<major>.<minor>) whose hidden metrics are shown again'),
    option('azure-container-registry-config', 'string', 'file with the container registry configuration'),
    option('cloud-config', 'string', 'cloud provider configuration file; empty means none'),
    option('cloud-provider', 'string', 'cloud provider; empty means none'),
  ],
});
