# recnotes: `make demo` shows it working, `make test` checks it. Both install what they need.
SWIFT ?= swift
PREFIX ?= /usr/local

BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
BASHDIR = $(PREFIX)/share/bash-completion/completions
ZSHDIR = $(PREFIX)/share/zsh/site-functions
FISHDIR = $(PREFIX)/share/fish/vendor_completions.d

.PHONY: all deps build release test demo bench man install uninstall clean

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
	scripts/man.sh --check

# Regenerates man/recnotes.1 from the command definitions; commit the result.
man: deps
	$(SWIFT) build
	scripts/man.sh

demo: release
	@scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)/recnotes"

bench: release
	@bench/run-all

# make install PREFIX=~/.local: the release binary, the man page and bash/zsh/fish completions.
install: release
	@bin="$$($(SWIFT) build -c release --show-bin-path)/recnotes"; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)" "$(DESTDIR)$(BASHDIR)" "$(DESTDIR)$(ZSHDIR)" "$(DESTDIR)$(FISHDIR)" && \
	install -m 755 "$$bin" "$(DESTDIR)$(BINDIR)/recnotes" && \
	install -m 644 man/recnotes.1 "$(DESTDIR)$(MANDIR)/recnotes.1" && \
	"$$bin" --generate-completion-script bash > "$(DESTDIR)$(BASHDIR)/recnotes" && \
	"$$bin" --generate-completion-script zsh > "$(DESTDIR)$(ZSHDIR)/_recnotes" && \
	"$$bin" --generate-completion-script fish > "$(DESTDIR)$(FISHDIR)/recnotes.fish" && \
	echo "installed recnotes into $(DESTDIR)$(PREFIX)"

# Removes exactly what install put there.
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/recnotes" "$(DESTDIR)$(MANDIR)/recnotes.1" \
	  "$(DESTDIR)$(BASHDIR)/recnotes" "$(DESTDIR)$(ZSHDIR)/_recnotes" "$(DESTDIR)$(FISHDIR)/recnotes.fish"

clean:
	rm -rf .build
