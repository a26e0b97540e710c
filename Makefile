# ketama: build, test, install.
#
#   make                 build the release library and CLI
#   make demo            the main job on the bundled sample: which server holds each key
#   make test            install/check test dependencies, check formatting and
#                        lints, then run every test (the sanitizer runs below included)
#   make test-sanitizers the C test programs under AddressSanitizer + UBSan, the
#                        Rust side under AddressSanitizer, the C ABI under Miri
#   make bench           criterion benchmarks (results under target/criterion)
#   make generate        write include/ketama.h, bindings/php/ketama_ffi.h and
#                        Java's generated sources from the Rust sources and the
#                        core's registry (crates/ketama-gen)
#   make generate-check  render them in memory and fail naming each stale file
#                        (part of make lint, so of make test)
#   make man             the CLI's man page at target/man/ketama.1 (rendered by crates/ketama-cli/build.rs
#                        from the clap definition, with clap_mangen, into cargo's OUT_DIR)
#   make completions     shell completions: target/completions/ketama.bash, _ketama (zsh),
#                        ketama.fish (written by `ketama completions SHELL`)
#   make install PREFIX=/usr DESTDIR=/tmp/pkg
#                        library with its SONAME links, static library, header,
#                        pkg-config file and the ketama CLI
#   make java            the Java binding as target/ketama.jar (javac and jar only,
#                        against Debian's jna.jar and spymemcached.jar)
#   make deb             Debian packages in target/deb: libketama1, libketama-dev,
#                        ketama, libketama-java, php-ketama (docs/packaging.md)

CARGO      ?= cargo
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
DESTDIR    ?=
PROFILE    ?= release
VERSION    := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)

SHARED_LIB ?= target/$(PROFILE)/libketama.so
STATIC_LIB ?= target/$(PROFILE)/libketama.a
CLI        ?= target/$(PROFILE)/ketama

.PHONY: all build demo deps test lint generate generate-check test-sanitizers bench man man-files completions completions-files install install-files uninstall clean

all: build

build:
	$(CARGO) build --release

demo: build
	target/release/ketama find examples/ketama.servers user:1 user:2 session:42 cart:7

deps:
	scripts/deps.sh

HOST_TARGET := $(shell rustc -vV 2>/dev/null | sed -n 's/^host: //p')

# `cargo test --workspace` builds the `ketama` command for the CLI's own tests
# (CARGO_BIN_EXE_ketama) before any test runs; the C ABI's and the bindings'
# tests compare with that build (target/debug/ketama).
test: deps lint
	$(CARGO) test --workspace --all-targets --no-fail-fast
	$(CARGO) test --workspace --doc
	$(MAKE) test-sanitizers

# Formatting and lints, warnings denied (clippy::undocumented_unsafe_blocks is
# denied for the whole workspace in Cargo.toml); the core crate stays
# publishable; the generated files are current.
lint: generate-check
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) package -p ketama-core --allow-dirty --quiet

# The generated files (crates/ketama-gen): `make generate` rewrites the stale
# ones, `make generate-check` (or `make generate CHECK=1`) only compares.
generate:
	$(CARGO) run --quiet -p ketama-gen --$(if $(CHECK), --check)

generate-check:
	$(CARGO) run --quiet -p ketama-gen -- --check

# The C programs of these modules are built with -fsanitize=address,undefined
# (ketama_testkit: KETAMA_C_SANITIZE), against the `ketama` command built
# first; the nightly toolchain (scripts/deps.sh) instruments the Rust side
# with AddressSanitizer and runs the C ABI's round trips and the multi-lane
# MD5 under Miri.
test-sanitizers:
	$(CARGO) build -p ketama-cli
	KETAMA_C_SANITIZE=address,undefined $(CARGO) test -p ketama --test c_abi -- \
	  abi:: ffi_sweep:: libketama_oracle:: setcodec_c::
	KETAMA_C_SANITIZE=address,undefined $(CARGO) test -p ketama --test bindings -- \
	  agreement::
	RUSTFLAGS=-Zsanitizer=address CARGO_TARGET_DIR=target/asan \
	  $(CARGO) +nightly test --target $(HOST_TARGET) -p ketama -p ketama-core --lib
	RUSTFLAGS=-Zsanitizer=address CARGO_TARGET_DIR=target/asan \
	  $(CARGO) +nightly test --target $(HOST_TARGET) -p ketama --test c_abi -- \
	  concurrency:: bad_input:: reload_races::
	MIRIFLAGS=-Zmiri-disable-isolation CARGO_TARGET_DIR=target/miri \
	  $(CARGO) +nightly miri test -p ketama --lib
	MIRIFLAGS=-Zmiri-disable-isolation CARGO_TARGET_DIR=target/miri \
	  $(CARGO) +nightly miri test -p ketama-core --lib -- hash::md5_lanes words::

bench:
	$(CARGO) bench --bench ring

# The CLI crate's build.rs renders ketama.1 into its OUT_DIR; cargo names that
# directory in its build-script-executed message. The package id is
# `...#ketama-cli@VERSION`, or `.../ketama-cli#VERSION`. man-files and
# completions-files only copy/write (MAN_SOURCE, CLI, MAN_OUT, COMPLETIONS_OUT).
MAN_OUT         ?= target/man
COMPLETIONS_OUT ?= target/completions

man:
	out_dir=$$($(CARGO) build --release --message-format=json-render-diagnostics \
	    | sed -n 's%.*"reason":"build-script-executed","package_id":"[^"]*\(#ketama-cli@\|/ketama-cli#\)[^"]*".*"out_dir":"\([^"]*\)".*%\2%p' \
	    | tail -n 1); \
	test -n "$$out_dir" && $(MAKE) --no-print-directory man-files MAN_SOURCE="$$out_dir/ketama.1"

man-files:
	mkdir -p $(MAN_OUT)
	cp $(MAN_SOURCE) $(MAN_OUT)/ketama.1

completions: build completions-files

completions-files:
	mkdir -p $(COMPLETIONS_OUT)
	$(CLI) completions bash > $(COMPLETIONS_OUT)/ketama.bash
	$(CLI) completions zsh > $(COMPLETIONS_OUT)/_ketama
	$(CLI) completions fish > $(COMPLETIONS_OUT)/ketama.fish

install: build install-files

install-files:
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR)
	install -m 0755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/libketama.so.$(VERSION)
	ln -sf libketama.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libketama.so.1
	ln -sf libketama.so.1 $(DESTDIR)$(LIBDIR)/libketama.so
	install -m 0644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/libketama.a
	install -m 0644 include/ketama.h $(DESTDIR)$(INCLUDEDIR)/ketama.h
	install -m 0755 $(CLI) $(DESTDIR)$(BINDIR)/ketama
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' ketama.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/ketama.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libketama.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libketama.so.1 \
	      $(DESTDIR)$(LIBDIR)/libketama.so $(DESTDIR)$(LIBDIR)/libketama.a \
	      $(DESTDIR)$(INCLUDEDIR)/ketama.h $(DESTDIR)$(BINDIR)/ketama $(DESTDIR)$(LIBDIR)/pkgconfig/ketama.pc

.PHONY: java deb

# The Java binding: classes compiled against Debian's jars (libjna-java;
# libspymemcached-java for KetamaNodeLocator and MigratingMemcachedClient
# only), packed with a manifest whose Class-Path names the jars beside it in
# /usr/share/java.
JAVA_JARS    ?= /usr/share/java/jna.jar:/usr/share/java/spymemcached.jar
JAVA_RELEASE ?= 17
JAR          ?= target/ketama.jar

java:
	rm -rf target/java/jar-classes
	mkdir -p target/java/jar-classes
	javac --release $(JAVA_RELEASE) -encoding UTF-8 -d target/java/jar-classes -cp $(JAVA_JARS) \
	    $$(find bindings/java/src/main/java -name '*.java' | LC_ALL=C sort)
	sed -e 's|@VERSION@|$(VERSION)|' bindings/java/MANIFEST.MF.in > target/java/MANIFEST.MF
	rm -f $(JAR)
	jar --create --file $(JAR) --manifest target/java/MANIFEST.MF --date=$(JAR_DATE) \
	    -C target/java/jar-classes .

# Reproducible archive entries: the last commit's time, else a fixed date.
JAR_DATE := $(shell git log -1 --format=%cI 2>/dev/null | grep . || echo 2026-01-01T00:00:00Z)

# Debian packages (packaging/deb/build.sh); the man page and completions come
# from `make man` and `make completions`.
deb: build man completions java
	packaging/deb/build.sh

clean:
	$(CARGO) clean
