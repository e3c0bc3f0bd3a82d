/** Progress while the suite runs: a cli-progress bar per step on a terminal, a line every few seconds otherwise. */
import cliProgress from 'cli-progress';

export class Progress {
  readonly #bar: cliProgress.SingleBar;
  #active = false;
  readonly #quiet: boolean;

  constructor(opts: { quiet?: boolean; stream?: NodeJS.WriteStream } = {}) {
    this.#quiet = opts.quiet ?? false;
    this.#bar = new cliProgress.SingleBar(
      {
        format: ' {bar} {percentage}% | {value}/{total} | {step}',
        stream: opts.stream ?? process.stderr,
        noTTYOutput: true,
        notTTYSchedule: 5000,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  /** start a step of `total` units */
  start(step: string, total: number): void {
    if (this.#quiet) return;
    this.stop();
    this.#bar.start(Math.max(1, total), 0, { step });
    this.#active = true;
  }

  tick(n = 1): void {
    if (this.#active) this.#bar.increment(n);
  }

  /** the step's units done so far (for counts watched rather than counted one by one) */
  update(done: number): void {
    if (this.#active) this.#bar.update(done);
  }

  stop(): void {
    if (!this.#active) return;
    this.#bar.stop();
    this.#active = false;
  }
}
