/** The time source of the prober's workers, replaceable in tests */
export interface ProberClock {
  /** epoch milliseconds */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const REAL_CLOCK: ProberClock = Object.freeze({
  now: () => Date.now(),
  setTimeout: (fn: () => void, ms: number) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
});
