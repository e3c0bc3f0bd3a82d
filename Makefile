# Ballast: the two commands of the README are `make run` and `make test`.
#   make run   install dependencies, build, and start a single-node cluster (`ballast all`: API server
#              on embedded SQLite, controller manager, scheduler, node agent) in the foreground;
#              extra flags: make run ARGS="--secure-port 7443 --data-dir /tmp/ballast"
#   make test  build, install test tools (kubectl 1.20 under .tools/), run every test;
#              the last line of output is `N passed, N failed`
#   make options-table  regenerate README.md's options tables from src/options/
#   make soak  build, then the long reliability runs (20 kill -9s, 10,000 bad requests, 3 minutes of
#              Lease churn under compaction); figures at the end (README, section Reliability)
SHELL := /bin/bash
NODE_MODULES_STAMP := node_modules/.install-stamp

.PHONY: all deps build run test test-deps unit e2e soak clean bench bench-quick options-table

all: build

# A fresh clone gets `npm ci` (exact lock; builds better-sqlite3 from source when no prebuilt binary
# can be downloaded). An existing node_modules is never wiped: it is topped up with `npm install`
# only when `npm ls` finds something missing, so a shared working tree is not disturbed.
$(NODE_MODULES_STAMP): package.json package-lock.json
	@if [ ! -d node_modules ]; then \
	  npm ci --no-audit --no-fund; \
	elif ! npm ls --depth=0 >/dev/null 2>&1; then \
	  npm install --no-audit --no-fund; \
	fi
	@touch $@

deps: $(NODE_MODULES_STAMP)

build: deps
	npx tsc -p tsconfig.json

# `make run` is configured as kubeadm configures a cluster: loopback only (ARGS="--bind-address
# 0.0.0.0" to serve a network; later flags win), Node and RBAC authorization, so anonymous callers
# get only what system:public-info-viewer grants (health and version), NodeRestriction admission;
# the admin kubeconfig is in system:masters. test/e2e/make-run-defaults.test.ts starts a server with exactly these flags.
RUN_FLAGS := --bind-address 127.0.0.1 --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction
# `ballast all`'s own: with the containerd Ballast starts, images made from the host's static busybox
# (ballast.local/busybox:<version> and the sandbox image), so the README's walk-through works on a
# machine that reaches no registry; ignored with a warning where they cannot be made
ALL_FLAGS := --offline-images
run: build
	node dist/src/cli/main.js all $(RUN_FLAGS) $(ALL_FLAGS) $(ARGS)

test-deps:
	bash scripts/install-test-deps.sh

test: build
	@bash scripts/install-test-deps.sh || echo "warning: test tools could not be installed; tests that need them are skipped" >&2
	bash scripts/test.sh

# only the unit tests (everything but test/e2e)
unit: build
	bash scripts/test.sh $$(find test -name '*.test.ts' -not -path 'test/e2e/*' | sort)

# only the end-to-end tests (real server process, real kubectl)
e2e: build test-deps
	bash scripts/test.sh $$(find test/e2e -name '*.test.ts' | sort)

# benchmarks (bench/README.md): the full suite with etcd side by side (installs Debian's etcd-server
# when missing; takes about 20 minutes), and a small one for CI smoke runs; results in bench/results/
bench: build
	node dist/src/cli/main.js bench $(ARGS)

bench-quick: build
	node dist/src/cli/main.js bench --quick $(ARGS)

# the long forms of test/reliability (the short forms run in `make test`)
soak: build
	npx ts-node-transpile-only test/reliability/soak.ts

# rewrite README.md's options tables (between <!-- options:begin --> and <!-- options:end -->) from
# the option tables in src/options/; test/docs/options-table.test.ts fails when they are out of date
options-table: deps
	npx tsx scripts/options-table.ts --write

clean:
	rm -rf dist .tap
