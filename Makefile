# Ballast: the two commands of the README are `make run` and `make test`.
SHELL := /bin/bash
NODE_MODULES_STAMP := node_modules/.install-stamp

.PHONY: all deps build run test unit e2e clean

all: build

$(NODE_MODULES_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: $(NODE_MODULES_STAMP)

build: deps
	npx tsc -p tsconfig.json

run: build
	node dist/src/cli/main.js apiserver $(ARGS)

test: build
	bash scripts/test.sh

clean:
	rm -rf dist .tap
