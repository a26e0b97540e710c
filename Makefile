# ketama: build, test, install.
#
#   make                 build the release library and CLI
#   make demo            the main job on the bundled sample: which server holds each key
#   make test            install/check test dependencies, then run every test
#                        (the sanitizer runs below included)
#   make test-sanitizers the C test programs under AddressSanitizer + UBSan, the
#                        Rust side under AddressSanitizer, the C ABI under Miri
#   make bench           criterion benchmarks (results under target/criterion)
#   make install PREFIX=/usr DESTDIR=/tmp/pkg
#                        library with its SONAME links, static library, header,
#                        pkg-config file and the ketama CLI

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

.PHONY: all build demo deps test test-sanitizers bench install install-files uninstall clean

all: build

build:
	$(CARGO) build --release

demo: build
	target/release/ketama find examples/ketama.servers user:1 user:2 session:42 cart:7

deps:
	scripts/deps.sh

HOST_TARGET := $(shell rustc -vV 2>/dev/null | sed -n 's/^host: //p')

test: deps
	$(CARGO) test --all-targets --no-fail-fast
	$(CARGO) test --doc
	$(MAKE) test-sanitizers

# The C programs of these suites are built with -fsanitize=address,undefined
# (tests/common: KETAMA_C_SANITIZE); the nightly toolchain (scripts/deps.sh)
# instruments the Rust side with AddressSanitizer and runs the C ABI's round
# trips and the multi-lane MD5 under Miri.
test-sanitizers:
	KETAMA_C_SANITIZE=address,undefined $(CARGO) test --test c_abi --test ffi_sweep \
	  --test libketama_oracle --test setcodec_c --test bindings_agreement
	RUSTFLAGS=-Zsanitizer=address CARGO_TARGET_DIR=target/asan \
	  $(CARGO) +nightly test --target $(HOST_TARGET) --lib --test concurrency \
	  --test bad_input --test reload_races
	MIRIFLAGS=-Zmiri-disable-isolation CARGO_TARGET_DIR=target/miri \
	  $(CARGO) +nightly miri test --lib -- ffi:: hash::md5_lanes

bench:
	$(CARGO) bench --bench ring

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

clean:
	$(CARGO) clean
