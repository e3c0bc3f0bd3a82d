#!/usr/bin/env bash
# Run every tap test (test/**/*.test.ts, or the files given as arguments) and end with the line
# `N passed, N failed[, N skipped]`, which CI reads. Expects a build (make test builds first):
# the end-to-end tests start dist/src/cli/main.js.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(find test -name '*.test.ts' -type f | sort)
fi
if [ "${#files[@]}" -eq 0 ]; then
  echo "no test files found" >&2
  echo "0 passed, 0 failed"
  exit 1
fi

if [ ! -f dist/src/cli/main.js ]; then
  echo "warning: dist/src/cli/main.js is missing; run 'make build' first (end-to-end tests will fail)" >&2
fi

# scripts/run-tests.js runs the files (two at a time; BALLAST_TEST_JOBS) as plain node processes
# with tsx's CommonJS hook, and writes tap's TAP stream; tap-summary.js echoes it compactly. tsx
# applies a tsconfig only to the files it includes, and the build's tsconfig leaves test/ out: this
# one covers the tests too (strict mode, as the build)
export TSX_TSCONFIG_PATH="$PWD/tsconfig.test.json"

node scripts/run-tests.js "${files[@]}" | node scripts/tap-summary.js
statuses=("${PIPESTATUS[@]}")
tap_status=${statuses[0]}
summary_status=${statuses[1]}

if [ "$tap_status" -ne 0 ] || [ "$summary_status" -ne 0 ]; then
  exit 1
fi
exit 0
