# recnotes: `make demo` shows it working, `make test` checks it. Both install what they need.
SWIFT ?= swift
PREFIX ?= /usr/local

.PHONY: all deps build release test demo bench clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

demo: release
	@scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)/recnotes"

bench: release
	@bench/run-all

clean:
	rm -rf .build
