/**
 * How steady is this machine's fsync? Writes 16 KiB and fdatasyncs it in a loop (about what one
 * commit of a small batch costs the WAL) for N seconds, alone, and prints the latency quantiles and
 * the worst latency of every 5 s. Tail latencies of durable writes cannot be lower than this.
 *
 *   node dist/bench/fsync-probe.js [seconds=60] [dir=os.tmpdir()]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const seconds = Number(process.argv[2] ?? 60);
const dir = process.argv[3] ?? os.tmpdir();
const file = path.join(fs.mkdtempSync(path.join(dir, 'fsync-probe-')), 'probe.dat');
const fd = fs.openSync(file, 'w');
const block = Buffer.alloc(16 * 1024, 1);
const samples: number[] = [];
const windows: number[] = [];
let windowMax = 0;
let windowStart = Date.now();
let offset = 0;
const end = Date.now() + seconds * 1000;
while (Date.now() < end) {
  const t0 = process.hrtime.bigint();
  fs.writeSync(fd, block, 0, block.length, offset);
  fs.fdatasyncSync(fd);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  offset = (offset + block.length) % (64 << 20);
  samples.push(ms);
  windowMax = Math.max(windowMax, ms);
  if (Date.now() - windowStart >= 5000) {
    windows.push(windowMax);
    windowMax = 0;
    windowStart = Date.now();
  }
  // about 200 commits a second, not a tight loop
  const until = Date.now() + 4;
  while (Date.now() < until);
}
fs.closeSync(fd);
fs.rmSync(path.dirname(file), { recursive: true, force: true });
samples.sort((a, b) => a - b);
const q = (p: number) => samples[Math.floor(p * (samples.length - 1))].toFixed(2);
console.log(`fsync of 16 KiB in ${dir}: n ${samples.length}, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, p99.9 ${q(0.999)} ms, max ${samples[samples.length - 1].toFixed(1)} ms`);
console.log(`worst per 5 s (ms): ${windows.map((w) => w.toFixed(0)).join(' ')}`);
