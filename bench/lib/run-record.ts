/** The JSON a standalone bench script (idle, watchers, pod-startup) records: its command, the machine, its figures. */
import fs from 'node:fs';
import os from 'node:os';
import { round } from './stats';

/** write the record to `out` (when given): the command that produced it and the machine, then `figures` */
export function writeRunRecord(out: string | undefined, script: string, figures: Record<string, unknown>): void {
  if (!out) return;
  const record = {
    command: `node dist/bench/${script} ${process.argv.slice(2).join(' ')}`.trim(),
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    loadAverage: os.loadavg().map((l) => round(l, 2)),
    ...figures,
  };
  fs.writeFileSync(out, JSON.stringify(record, null, 2) + '\n');
}
