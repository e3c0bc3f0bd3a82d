#!/usr/bin/env node
// Runs tap test files, a few at a time, and writes one TAP 14 stream of them on stdout in the shape
// `tap --reporter=tap` gives (`# Subtest: <file>`, the file's own TAP indented, `ok N - <file>`),
// which scripts/tap-summary.js reads.
//
// Why not tap's own runner: it starts every test file with its process-info ESM hooks (a loader
// thread per file) and under our TypeScript loader's ESM hooks too; on 2 cores that cost about one
// CPU-second per file, several minutes for the suite. Here each file runs as plain node with tsx's
// CommonJS hook only (`--require tsx/cjs`); the files still use tap's API and print TAP.
//
// Usage: node scripts/run-tests.js [files...]   (no files: every test/**/*.test.ts)
// Environment: BALLAST_TEST_JOBS (files at once, default 2), BALLAST_TEST_TIMEOUT (seconds per file,
// default 300, as .taprc's timeout).
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const JOBS = Math.max(1, Number(process.env.BALLAST_TEST_JOBS || 2));
const TIMEOUT_MS = Math.max(1, Number(process.env.BALLAST_TEST_TIMEOUT || 300)) * 1000;
/** after SIGTERM on a timeout, how long a file gets to tear down before SIGKILL */
const KILL_GRACE_MS = 10_000;

function findTests(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findTests(full));
    else if (entry.isFile() && entry.name.endsWith('.test.ts')) out.push(path.relative(ROOT, full));
  }
  return out;
}

// the slow folders first, so that the last files to run are short ones and both workers stay busy
// to the end (longest-first scheduling, by folder since durations are not recorded)
const SLOW_FIRST = ['test/e2e/', 'test/reliability/', 'test/bench/', 'test/controllers/', 'test/nodeagent/', 'test/scheduler/', 'test/storage/'];
function weight(file) {
  const i = SLOW_FIRST.findIndex((prefix) => file.startsWith(prefix));
  return i === -1 ? SLOW_FIRST.length : i;
}

const files = (process.argv.length > 2 ? process.argv.slice(2) : findTests(path.join(ROOT, 'test')).sort()).map((f) => path.relative(ROOT, path.resolve(f)));
const order = [...files].sort((a, b) => weight(a) - weight(b) || (a < b ? -1 : a > b ? 1 : 0));

// TAP_TIMEOUT: tap's own limit for the file (it then reports which test was still running); the
// runner's timer, a little later, only catches a process that does not end after that
const env = {
  ...process.env,
  TSX_TSCONFIG_PATH: process.env.TSX_TSCONFIG_PATH || path.join(ROOT, 'tsconfig.test.json'),
  TAP_TIMEOUT: String(TIMEOUT_MS / 1000),
};
let next = 0;
let reported = 0;
let failed = 0;
const children = new Set();

process.stdout.write('TAP version 14\n');

function indent(text) {
  return text
    .split('\n')
    .filter((line, i, all) => !(i === all.length - 1 && line === ''))
    .filter((line) => line !== 'TAP version 14')
    .map((line) => (line === '' ? '' : `    ${line}`))
    .join('\n');
}

function report(file, output, outcome, ms) {
  reported += 1;
  const ok = outcome.code === 0 && !outcome.timedOut;
  if (!ok) failed += 1;
  const lines = [`# Subtest: ${file}`];
  const body = indent(output);
  if (body) lines.push(body);
  lines.push(`${ok ? 'ok' : 'not ok'} ${reported} - ${file} # time=${ms.toFixed(3)}ms`);
  if (!ok) {
    const why = outcome.timedOut ? `timeout: more than ${TIMEOUT_MS / 1000}s` : outcome.signal ? `killed by ${outcome.signal}` : `exit code ${outcome.code}`;
    lines.push('  ---', `  file: ${file}`, `  failure: ${JSON.stringify(why)}`, '  ...');
  }
  process.stdout.write(lines.join('\n') + '\n\n');
}

function runOne(file) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--enable-source-maps', '--require=tsx/cjs', file], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: false,
    });
    children.add(child);
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    let timedOut = false;
    let killer;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      killer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    }, TIMEOUT_MS + 30_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      children.delete(child);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      report(file, Buffer.concat(chunks).toString('utf8'), { code, signal, timedOut }, ms);
      resolve();
    });
  });
}

async function worker() {
  while (next < order.length) {
    const file = order[next++];
    await runOne(file);
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill('SIGTERM');
    process.exit(130);
  });
}

Promise.all(Array.from({ length: Math.min(JOBS, order.length) }, worker)).then(() => {
  process.stdout.write(`1..${reported}\n`);
  process.exitCode = failed > 0 || reported === 0 ? 1 : 0;
});
