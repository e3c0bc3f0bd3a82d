#!/usr/bin/env node
// Reads the TAP 14 stream of `tap --reporter=tap` on stdin, echoes it without the passing
// assertion lines (failures keep all their diagnostics), and ends with one line
// `N passed, N failed[, N skipped]` counting tests:
//  - a test is a subtest (`# Subtest:` header) with no subtests inside it: a leaf;
//  - a subtest that contains subtests counts through its leaves, plus one failure when it fails
//    with no failed leaf (an error in its own body, a crash, a timeout);
//  - a subtest marked SKIP or TODO counts all its leaves (at least one) as skipped; one that
//    never ran (no header) counts as one skipped test.
// Exit status: 1 when anything failed or no test ran, else 0.
'use strict';

const readline = require('node:readline');

const RESULT = /^( *)(not ok|ok)\b[^#]*(?:#\s*(\w+)(.*))?$/;
const SUBTEST = /^( *)# Subtest: /;

const total = { passed: 0, failed: 0, skipped: 0 };
/** open subtests, innermost last: { depth, hasChildTests, tally } */
const stack = [];
let bailedOut = false;

const empty = () => ({ passed: 0, failed: 0, skipped: 0 });
const add = (into, t) => {
  into.passed += t.passed;
  into.failed += t.failed;
  into.skipped += t.skipped;
};

function kindOf(ok, directive) {
  const d = (directive || '').toUpperCase();
  if (d === 'SKIP' || d === 'TODO') return 'skipped';
  return ok ? 'passed' : 'failed';
}

function close(frame, kind) {
  let tally;
  if (!frame.hasChildTests) {
    tally = empty();
    tally[kind]++;
  } else if (kind === 'skipped') {
    const leaves = frame.tally.passed + frame.tally.failed + frame.tally.skipped;
    tally = { passed: 0, failed: 0, skipped: Math.max(1, leaves) };
  } else {
    tally = frame.tally;
    if (kind === 'failed' && tally.failed === 0) tally.failed++;
  }
  add(stack.length > 0 ? stack[stack.length - 1].tally : total, tally);
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (/^\s*Bail out!/.test(line)) bailedOut = true;
  const sub = SUBTEST.exec(line);
  if (sub) {
    if (stack.length > 0) stack[stack.length - 1].hasChildTests = true;
    stack.push({ depth: sub[1].length, hasChildTests: false, tally: empty() });
    process.stdout.write(line + '\n');
    return;
  }
  const m = RESULT.exec(line);
  if (!m) {
    process.stdout.write(line + '\n');
    return;
  }
  const ok = m[2] === 'ok';
  const top = stack[stack.length - 1];
  if (top && top.depth === m[1].length) {
    // the result line of the innermost open subtest
    stack.pop();
    close(top, kindOf(ok, m[3]));
    process.stdout.write(line + '\n');
  } else if (kindOf(ok, m[3]) === 'skipped') {
    // a skipped or todo subtest that never ran has no `# Subtest:` header
    const parent = stack[stack.length - 1];
    if (parent) parent.hasChildTests = true;
    close({ hasChildTests: false }, 'skipped');
    process.stdout.write(line + '\n');
  } else if (!ok) {
    // a failed assertion: shown; its test's own result line carries the failure
    process.stdout.write(line + '\n');
  }
});

rl.on('close', () => {
  if (bailedOut && total.failed === 0) total.failed++;
  let summary = `${total.passed} passed, ${total.failed} failed`;
  if (total.skipped > 0) summary += `, ${total.skipped} skipped`;
  process.stdout.write(`\n${summary}\n`);
  process.exitCode = total.failed > 0 || total.passed + total.skipped === 0 ? 1 : 0;
});
