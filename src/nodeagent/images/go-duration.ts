/**
 * Durations printed as Go's time.Duration.String() prints them (`10s`, `1m20s`, `5m0s`, `1.5s`,
 * `250ms`), since kube's messages embed them: `back-off 20s restarting failed container=...`,
 * `Successfully pulled image "x" in 1.2s`.
 */

function trimFraction(value: number, digits: number): string {
  return value.toFixed(digits).replace(/\.?0+$/, '');
}

/** `ms` milliseconds (fractions allowed, down to nanoseconds) in Go's notation */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1e-3) return `${sign}${Math.round(abs * 1e6)}ns`;
  if (abs < 1) return `${sign}${trimFraction(abs * 1e3, 3)}µs`;
  if (abs < 1000) return `${sign}${trimFraction(abs, 6)}ms`;
  const totalSeconds = abs / 1000;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds - hours * 3600) / 60);
  const seconds = totalSeconds - hours * 3600 - minutes * 60;
  const secondsText = `${trimFraction(seconds, 9) || '0'}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${sign}${minutes}m${secondsText}`;
  return `${sign}${secondsText}`;
}
