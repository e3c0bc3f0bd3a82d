/** klog's four severities, in order; files and --stderrthreshold are per severity */
export const SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'FATAL'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** the klog severity (0-3) of a pino level: trace, debug and info are INFO */
export function severityOfLevel(level: number): number {
  if (level >= 60) return 3;
  if (level >= 50) return 2;
  if (level >= 40) return 1;
  return 0;
}

/** pino's level for a kube verbosity (-v or a --vmodule N): 0-3 info, 4-5 debug, 6 and up trace */
export function levelForVerbosity(verbosity: number): 'info' | 'debug' | 'trace' {
  return verbosity >= 6 ? 'trace' : verbosity >= 4 ? 'debug' : 'info';
}
