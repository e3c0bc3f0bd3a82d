#!/usr/bin/env node
// Reads the TAP 14 stream of `tap --reporter=tap` on stdin, echoes it without the passing
// assertion lines below test level (failures keep all their diagnostics), and ends with one line
// `N passed, N failed[, N skipped]` counting tests: the results one level inside each test file.
// A file that fails outside any test (a crash on import, a timeout) counts as one failed test.
// Exit status: 1 when anything failed or no test ran, else 0.
'use strict';

const readline = require('node:readline');

const RESULT = /^( *)(not ok|ok)\b[^#]*(?:#\s*(\w+)(.*))?$/;

let passed = 0;
let failed = 0;
let skipped = 0;
// per file: failures and results counted at test level so far
let fileFailures = 0;
let fileResults = 0;
let bailedOut = false;

function classify(ok, directive) {
  const d = (directive || '').toUpperCase();
  if (d === 'SKIP' || d === 'TODO') return 'skipped';
  return ok ? 'passed' : 'failed';
}

function count(kind) {
  if (kind === 'passed') passed++;
  else if (kind === 'failed') failed++;
  else skipped++;
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (/^\s*Bail out!/.test(line)) bailedOut = true;
  const m = RESULT.exec(line);
  if (!m) {
    process.stdout.write(line + '\n');
    return;
  }
  const depth = Math.floor(m[1].length / 4);
  const ok = m[2] === 'ok';
  const kind = classify(ok, m[3]);
  if (depth === 1) {
    count(kind);
    fileResults++;
    if (kind === 'failed') fileFailures++;
  } else if (depth === 0) {
    // the end of one test file
    if (kind === 'failed' && fileFailures === 0) failed++;
    if (kind === 'skipped' && fileResults === 0) skipped++;
    fileFailures = 0;
    fileResults = 0;
  }
  if (depth <= 1 || !ok) process.stdout.write(line + '\n');
});

rl.on('close', () => {
  if (bailedOut && failed === 0) failed++;
  let summary = `${passed} passed, ${failed} failed`;
  if (skipped > 0) summary += `, ${skipped} skipped`;
  process.stdout.write(`\n${summary}\n`);
  process.exitCode = failed > 0 || passed + skipped === 0 ? 1 : 0;
});
