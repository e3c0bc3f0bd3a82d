import type { TraceLocation } from './call-site';
import type { VModuleRule } from './vmodule';

/** the klog-style logging flags (spec 2, 1.1), resolved; src/options/logging.ts builds it */
export interface LoggingConfig {
  /** --logging-format */
  readonly format: 'text' | 'json';
  /** -v */
  readonly verbosity: number;
  /** --vmodule */
  readonly vmodule: readonly VModuleRule[];
  /** --logtostderr: standard error only, no files */
  readonly toStderr: boolean;
  /** --alsologtostderr: files and standard error */
  readonly alsoToStderr: boolean;
  /** --stderrthreshold: 0 INFO .. 3 FATAL; with files, entries at or above it also go to standard error */
  readonly stderrThreshold: number;
  /** --log-file */
  readonly file?: string;
  /** --log-dir */
  readonly dir?: string;
  /** --log-file-max-size in MB; 0 = no limit */
  readonly maxSizeMB: number;
  /** --one-output */
  readonly oneOutput: boolean;
  /** --skip-headers */
  readonly skipHeaders: boolean;
  /** --skip-log-headers */
  readonly skipLogHeaders: boolean;
  /** --add-dir-header */
  readonly addDirHeader: boolean;
  /** --log-flush-frequency in milliseconds */
  readonly flushFrequencyMs: number;
  /** --log-backtrace-at; undefined = off */
  readonly backtraceAt?: TraceLocation;
  /** --experimental-logging-sanitization */
  readonly sanitize: boolean;
}
