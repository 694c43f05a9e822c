# recnotes: `make demo` shows it working, `make test` checks it. Both install what they need.
SWIFT ?= swift
PREFIX ?= /usr/local

BINDIR = $(PREFIX)/bin
LIBEXECDIR = $(PREFIX)/libexec/recnotes
MANDIR = $(PREFIX)/share/man/man1
BASHDIR = $(PREFIX)/share/bash-completion/completions
ZSHDIR = $(PREFIX)/share/zsh/site-functions
FISHDIR = $(PREFIX)/share/fish/vendor_completions.d

# The Swift sources as `swift format` sees them (.swift-format at the root holds the style).
FORMAT_PATHS = Package.swift Sources Tests Plugins bench/transcribe bench/encode bench/spans

.PHONY: all deps build release format lint test test-tsan test-asan demo bench man install uninstall deb package-check clean

all: build

deps:
	@scripts/install-deps.sh

# Each layer may import only the targets Package.swift names as its dependencies: without
# this check, a target could import any module that happened to be built before it.
LAYERS = --explicit-target-dependency-import-check error

build: deps
	$(SWIFT) build $(LAYERS)

# The Swift runtime is linked statically, so the binary needs only Debian's own libraries
# (libasound2, libsndfile1, libc, libgcc_s; libstdc++ too is linked statically, see
# scripts/static-libstdc++) and keeps working without a Swift toolchain.
# It also starts faster: no dynamic symbol lookups into ten Swift libraries (a one-second
# play: 17.2 -> 12.4 ms of CPU; see bench/RESULTS.md).
RELEASE_FLAGS = -c release --static-swift-stdlib
RELEASE_BIN = $$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/recnotes

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

format:
	$(SWIFT) format -i -r -p $(FORMAT_PATHS)

# Zero diagnostics: `make format` fixes what it can; the rest is fixed by hand.
lint:
	$(SWIFT) format lint --strict -r -p $(FORMAT_PATHS)

test: deps lint
	$(SWIFT) build --build-tests $(LAYERS)
	$(SWIFT) test
	scripts/man.sh --check
	$(MAKE) test-tsan
	$(MAKE) test-asan

# The sanitizers build everything again, each in a scratch directory of its own, so they
# never invalidate the normal build. ThreadSanitizer runs what has threads: the audio
# engine (capture thread, ring, mailbox), the System pieces, and remote control and the
# controlled recording output end to end (the binary under test is built with TSan too).
# Those suites are tagged `.threads`; `swift test` cannot select by tag, so they are named
# here, and ThreadSanitizerSelectionTests fails when this regex and the tags differ.
TSAN_TESTS = \.(AudioEngineBasicsTests|AudioEngineDeviceTests|SystemTests|RemoteControlTests|CaptureExhaustedInputTests)/
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --filter '$(TSAN_TESTS)'

# AddressSanitizer runs the library targets' own suites, in process, plus the end-to-end
# suite of the audio path (record and play through ALSA, the ASan-built binary under test):
# that is where recnotes touches memory by hand (C buffers of ALSA, libsndfile, SoundTouch,
# libebur128, SpeexDSP, PocketSphinx; the store's byte-level parsing and tables). The rest of
# the end-to-end suites drive the same library code through the binary, and under ASan took
# about 1,600 s of a CI run that must end within 90 minutes; they run in the plain
# `swift test`. `make test-asan ASAN_TESTS=.` runs every suite (the multi-process
# concurrency test's wall-clock watchdog stretches by RECNOTES_TEST_SLOWDOWN). Leak checking
# is off: the only leaks it reports are XCTest's own objects at the harness's exit.
# It links with lld: gold prints a warning for each of the ASan runtime's local symbols.
ASAN_TESTS = ^(RecAudioTests|RecCoreTests|RecStoreTests|RecSystemTests|RecTranscriptsTests|RecSyncTests|RecServeTests)\.|\.AudioEndToEndTests/
ASAN_FLAGS = --sanitize=address --scratch-path .build-asan -Xswiftc -use-ld=lld
test-asan: deps
	$(SWIFT) build --build-tests $(ASAN_FLAGS)
	RECNOTES_TEST_SLOWDOWN=4 ASAN_OPTIONS=detect_leaks=0 \
	  $(SWIFT) test --skip-build $(ASAN_FLAGS) --filter '$(ASAN_TESTS)'

# Regenerates man/recnotes.1 from the command definitions; commit the result.
man: deps
	$(SWIFT) build
	scripts/man.sh

demo: release
	@scripts/demo.sh "$(RELEASE_BIN)"

bench: release
	@bench/run-all

# make install PREFIX=~/.local: the release binary, its server (libexec/recnotes), the man page and
# bash/zsh/fish completions.
install: release
	@bin="$(RELEASE_BIN)"; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBEXECDIR)" "$(DESTDIR)$(MANDIR)" "$(DESTDIR)$(BASHDIR)" "$(DESTDIR)$(ZSHDIR)" "$(DESTDIR)$(FISHDIR)" && \
	install -m 755 "$$bin" "$(DESTDIR)$(BINDIR)/recnotes" && \
	install -m 755 "$$(dirname "$$bin")/recnotes-serve" "$(DESTDIR)$(LIBEXECDIR)/recnotes-serve" && \
	scripts/man.sh --stamp "$$(scripts/version.sh)" < man/recnotes.1 > "$(DESTDIR)$(MANDIR)/recnotes.1" && \
	"$$bin" --generate-completion-script bash > "$(DESTDIR)$(BASHDIR)/recnotes" && \
	"$$bin" --generate-completion-script zsh > "$(DESTDIR)$(ZSHDIR)/_recnotes" && \
	"$$bin" --generate-completion-script fish > "$(DESTDIR)$(FISHDIR)/recnotes.fish" && \
	echo "installed recnotes into $(DESTDIR)$(PREFIX)"

# Removes exactly what install put there.
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/recnotes" "$(DESTDIR)$(LIBEXECDIR)/recnotes-serve" "$(DESTDIR)$(MANDIR)/recnotes.1" \
	  "$(DESTDIR)$(BASHDIR)/recnotes" "$(DESTDIR)$(ZSHDIR)/_recnotes" "$(DESTDIR)$(FISHDIR)/recnotes.fish"
	-rmdir "$(DESTDIR)$(LIBEXECDIR)" 2>/dev/null

# recnotes_<version>_<arch>.deb in the repository root (scripts/deb.sh). It builds in a
# scratch directory of its own, so it never waits on the lock of a `make test` or `make
# release` running in the same checkout.
DEB_FLAGS = $(RELEASE_FLAGS) --scratch-path .build-deb
deb: deps
	@scripts/install-deps.sh --packaging
	$(SWIFT) build $(DEB_FLAGS)
	@scripts/deb.sh "$$($(SWIFT) build $(DEB_FLAGS) --show-bin-path)/recnotes"

# Builds the .deb, installs it into a fresh minimal Debian 12 (debootstrap) with no Swift
# toolchain, uses it there, purges it, and checks nothing of it is left.
package-check: deb
	@scripts/package-check.sh

clean:
	rm -rf .build .build-tsan .build-asan .build-deb *.deb
