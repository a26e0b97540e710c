#!/usr/bin/env bash
# Installs (or checks) everything the test suite needs on a Debian/Ubuntu
# machine, and says exactly what is missing when it cannot install it.
#
#   scripts/deps.sh          install what is missing (needs root or sudo), in one pass
#   scripts/deps.sh --check  only report what is missing (exit 1 if anything is)
#
# Every requirement is a probe (a command on PATH, a file, a module a runtime
# loads) paired with the Debian package that satisfies it. Each probe is run on
# its own, so the list of missing packages never depends on what else happens
# to be installed: with `php` absent, the PHP extensions count as missing too.
set -euo pipefail
cd "$(dirname "$0")/.."

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

need() { missing_packages+=("$1"); }

# Fills missing_packages with the Debian packages whose probes fail.
probe_all() {
missing_packages=()

# command -> Debian package providing it
declare -A tools=(
  [cargo]="(rustup toolchain, https://rustup.rs)"
  [gcc]=gcc [g++]=g++ [make]=make [pkg-config]=pkg-config
  [readelf]=binutils [nm]=binutils [ipcs]=util-linux [ipcrm]=util-linux
  [python3]=python3 [valgrind]=valgrind
  [memcached]=memcached [nutcracker]=nutcracker
  [php]=php8.2-cli [java]=openjdk-17-jdk-headless [javac]=openjdk-17-jdk-headless
  [cgi-fcgi]=libfcgi-bin
  [groff]=groff-base
  # Mono: the .NET runtime ketama-testkit/peers/EnyimPeer.cs runs on (peers::enyim)
  [mcs]=mono-mcs [mono]=mono-runtime
)
for tool in "${!tools[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || need "${tools[$tool]}"
done

# file -> Debian package providing it. libmemcached.pc requires libsasl2.pc and
# (privately) libcrypto.pc, which libmemcached-dev only recommends: without
# them `pkg-config --exists libmemcached` fails. The PHP web SAPIs the
# binding's preloading is tested in (tests/bindings/php_fpm.rs: PHP-FPM,
# driven by libfcgi-bin's cgi-fcgi, and php-cgi; both bring php8.2-opcache)
# are probed by their files: php-fpm8.2 is in /usr/sbin, often not on PATH.
declare -A files=(
  [/usr/include/libmemcached/memcached.h]=libmemcached-dev
  [/usr/include/sasl/sasl.h]=libsasl2-dev
  [/usr/include/openssl/crypto.h]=libssl-dev
  [/usr/share/java/jna.jar]=libjna-java
  [/usr/share/java/spymemcached.jar]=libspymemcached-java
  [/usr/lib/mono/4.5/System.dll]=libmono-system4.0-cil
  [/usr/share/java/junit4.jar]=junit4
  [/usr/sbin/php-fpm8.2]=php8.2-fpm
  [/usr/bin/php-cgi8.2]=php8.2-cgi
)
for file in "${!files[@]}"; do
  [ -e "$file" ] || need "${files[$file]}"
done

# Python: the oracle venv needs venv/ensurepip, and pip compiles the original
# libketama against Python's headers. Without python3 both are missing.
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need python3-venv
  python3 -c 'import os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    >/dev/null 2>&1 || need python3-dev
else
  need python3-venv
  need python3-dev
fi

# Python binding (bindings/python, tests/bindings/python.rs): Debian's own
# /usr/bin/python3 (not a python3 elsewhere on PATH, e.g. pyenv) creates the
# test venv with --system-site-packages, into which pip builds the package
# offline with maturin (its wheel, below) and cargo, and loads pylibmc and
# pymemcache from the Debian packages. Without /usr/bin/python3 every module
# below is missing too.
declare -A debian_python_modules=(
  [venv]=python3-venv [ensurepip]=python3-venv
  [pylibmc]=python3-pylibmc [pymemcache]=python3-pymemcache
  [memcache]=python3-memcache
)
[ -x /usr/bin/python3 ] || need python3
for module in "${!debian_python_modules[@]}"; do
  /usr/bin/python3 -c "import $module" >/dev/null 2>&1 || need "${debian_python_modules[$module]}"
done

# PHP extension -> Debian package. Without a php binary none can load, so all
# of them are missing (installing php8.2-cli alone does not bring them).
declare -A php_packages=([memcached]=php8.2-memcached [memcache]=php8.2-memcache [ffi]=php8.2-cli)
loaded=""
if command -v php >/dev/null 2>&1; then
  # Read the module list once (grep -q closing the pipe early would trip pipefail).
  loaded=$(php -m 2>/dev/null || true)
fi
for module in "${!php_packages[@]}"; do
  grep -qix "$module" <<<"$loaded" || need "${php_packages[$module]}"
done

# --- Continuum flavours' peers (libketama-java, dalli, nginx, node-memcached,
# memcached-fast). Each probe stands on its own: without ruby or perl the
# library they load is missing too.
command -v ruby >/dev/null 2>&1 || need ruby
ruby -e "require 'dalli'" >/dev/null 2>&1 || need ruby-dalli
[ -x /usr/sbin/nginx ] || need nginx-light
perl -MCache::Memcached::Fast -e 1 >/dev/null 2>&1 || need libcache-memcached-fast-perl
command -v node >/dev/null 2>&1 || need nodejs
command -v npm >/dev/null 2>&1 || need npm
# --- end of the continuum flavours' block
# --- Redis-client and Go flavours' peers (predis, phpredis, redis-rb,
# uhashring, django-redis, groupcache), each asked in-process. Each probe
# stands on its own: without php, ruby or go what they load is missing too.
php -r 'exit((@include "Predis/autoload.php") ? 0 : 1);' >/dev/null 2>&1 || need php-predis
grep -qix redis <<<"$loaded" || need php8.2-redis
ruby -e "require 'redis'" >/dev/null 2>&1 || need ruby-redis
/usr/bin/python3 -c "import uhashring" >/dev/null 2>&1 || need python3-uhashring
/usr/bin/python3 -c "import django_redis" >/dev/null 2>&1 || need python3-django-redis
# redis-shard's venv (below) takes redis-py from Debian's python3.
/usr/bin/python3 -c "import redis" >/dev/null 2>&1 || need python3-redis
command -v go >/dev/null 2>&1 || need golang-go
[ -f /usr/share/gocode/src/github.com/golang/groupcache/consistenthash/consistenthash.go ] \
  || need golang-github-golang-groupcache-dev
# --- end of the Redis-client block
# --- Redis Cluster's peer (crates/ketama-core/tests/peers/redis_cluster.rs):
# redis-server nodes in cluster mode and redis-cli's `--cluster create`.
command -v redis-server >/dev/null 2>&1 || need redis-server
command -v redis-cli >/dev/null 2>&1 || need redis-tools
# --- end of Redis Cluster's block
# --- Proxies observed live on loopback (crates/ketama-core/tests/peers/haproxy.rs,
# crates/ketama-core/tests/peers/varnish.rs): HAProxy, and varnishd with its bundled directors
# and blob vmods (it compiles each VCL with gcc, probed above).
[ -x /usr/sbin/haproxy ] || need haproxy
[ -x /usr/sbin/varnishd ] || need varnish
# --- end of the proxies' block
# Per-key placements' peers: pymemcache and python-memcached load through
# /usr/bin/python3 above; Perl Cache::Memcached (without perl, missing too).
perl -MCache::Memcached -e 1 >/dev/null 2>&1 || need libcache-memcached-perl
# --- Modulo defaults' peers (pecl-memcache-standard and spymemcached-array
# use php8.2-memcache and the spymemcached jar, gomemcache golang-go, all
# probed above): Debian's gomemcache source, which the gomemcache test builds
# against offline (GOPATH mode), and apr-util's headers for the apr-memcache
# test's C program. npm memjs is installed below.
[ -e /usr/share/gocode/src/github.com/bradfitz/gomemcache/memcache/selector.go ] \
  || need golang-github-bradfitz-gomemcache-dev
[ -e /usr/include/apr-1.0/apr_memcache.h ] || need libaprutil1-dev
# --- end of the modulo defaults' block

# --- Sanitizers (make test-sanitizers): gcc's AddressSanitizer and UBSan
# runtimes, probed by building a program with them; without gcc they count
# as missing too.
echo 'int main(void) { return 0; }' \
  | gcc -x c -fsanitize=address,undefined -o /dev/null - >/dev/null 2>&1 \
  || { need libasan8; need libubsan1; }

# --- Packaging (make deb, make java, tests/packages/debian.rs): dpkg-deb,
# dpkg-shlibdeps and dpkg-architecture from dpkg-dev, fakeroot for root-owned
# package files, lintian to check the packages, the JDK's jar tool, and
# composer to validate bindings/php/composer.json. Each probed on its own.
command -v dpkg-shlibdeps >/dev/null 2>&1 || need dpkg-dev
command -v dpkg-architecture >/dev/null 2>&1 || need dpkg-dev
command -v fakeroot >/dev/null 2>&1 || need fakeroot
command -v lintian >/dev/null 2>&1 || need lintian
command -v jar >/dev/null 2>&1 || need openjdk-17-jdk-headless
command -v composer >/dev/null 2>&1 || need composer
# --- end of the packaging block

# unique, sorted
mapfile -t missing_packages < <(printf '%s\n' "${missing_packages[@]}" | sort -u | sed '/^$/d')
}

probe_all

debian_missing=0
if [ "${#missing_packages[@]}" -gt 0 ]; then
  if [ "$check_only" = 1 ]; then
    echo "missing: ${missing_packages[*]}" >&2
    debian_missing=1
  elif printf '%s\n' "${missing_packages[@]}" | grep -q rustup; then
    echo "deps: cargo is missing: install a Rust toolchain with rustup first" >&2
    exit 1
  else
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "deps: installing ${missing_packages[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing_packages[@]}" >/dev/null
    # Probe again: a package that installed but does not satisfy its probe is named here.
    probe_all
    if [ "${#missing_packages[@]}" -gt 0 ]; then
      echo "deps: installed the packages, but these probes still fail: ${missing_packages[*]}" >&2
      exit 1
    fi
  fi
fi

# Besides Debian's packages: each item below is checked on its own; in check
# mode all of the missing ones are named before the script fails.
missing_other=()
other() {
  if [ "$check_only" = 1 ]; then missing_other+=("$1"); return 1; fi
  return 0
}

# rustfmt and clippy of the stable toolchain (make lint, run by make test).
for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    if other "the $component component: rustup component add $component"; then
      echo "deps: installing the $component component"
      rustup component add "$component"
    fi
  fi
done

# The nightly Rust toolchain with Miri and rust-src (make test-sanitizers:
# Miri over the C ABI, and -Zsanitizer=address), from rustup's registry.
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  if other "the nightly Rust toolchain with miri and rust-src: rustup toolchain install nightly --profile minimal --component miri,rust-src"; then
    echo "deps: installing the nightly Rust toolchain with miri and rust-src"
    if rustup run nightly rustc --version >/dev/null 2>&1; then
      rustup component add --toolchain nightly miri rust-src
    else
      rustup toolchain install nightly --profile minimal --component miri,rust-src
    fi
  fi
fi

# The original libketama C code, as the test oracle (PyPI ketama==0.1.1, compiled by pip).
oracle=target/oracle-venv
if ! "$oracle/bin/python" -c 'import ketama' >/dev/null 2>&1 \
  && other "the libketama oracle ($oracle with PyPI ketama==0.1.1): run scripts/deps.sh"; then
  echo "deps: building the libketama oracle (PyPI ketama==0.1.1) in $oracle"
  python3 -m venv "$oracle"
  "$oracle/bin/pip" install --quiet --disable-pip-version-check ketama==0.1.1
fi
# maturin, the Python binding's build backend (bindings/python/pyproject.toml),
# kept as a wheel in target/python-wheels: pip installs it from there with no
# network (`pip install --no-index --find-links target/python-wheels
# ./bindings/python`; tests/bindings/python.rs, tests/packages/debian.rs). Fetched
# with the oracle venv's pip (Debian's python3 may have none).
maturin_version=1.16.0
wheelhouse=target/python-wheels
maturin_wheels=("$wheelhouse"/maturin-"$maturin_version"-*.whl)
if [ ! -f "${maturin_wheels[0]}" ]; then
  other "maturin $maturin_version in $wheelhouse: run scripts/deps.sh" && {
  echo "deps: downloading maturin $maturin_version into $wheelhouse"
  "$oracle/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
    -d "$wheelhouse" "maturin==$maturin_version"
  }
fi
# The npm memcached client (and its hashring) for the node-memcached flavour's
# peer test, pinned, in target/node-peer (needs node and npm from above).
node_peer=target/node-peer
if [ ! -f "$node_peer/node_modules/memcached/package.json" ] \
  || ! grep -q '"version": "2.2.2"' "$node_peer/node_modules/memcached/package.json"; then
  other "npm memcached@2.2.2 in $node_peer: run scripts/deps.sh" && {
  echo "deps: installing npm memcached@2.2.2 into $node_peer"
  mkdir -p "$node_peer"
  (cd "$node_peer" && npm install --no-audit --no-fund --silent --no-save memcached@2.2.2 hashring@3.2.0)
  }
fi
# PyPI redis-shard for the redis-shard flavour's peer test, pinned, in a venv
# over Debian's python3 and its python3-redis (probed above), so pip fetches
# redis-shard alone.
redis_shard_venv=target/redis-shard-venv
if ! "$redis_shard_venv/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("redis-shard") != "0.3.7")' >/dev/null 2>&1; then
  other "PyPI redis-shard==0.3.7 in $redis_shard_venv: run scripts/deps.sh" && {
  echo "deps: installing PyPI redis-shard==0.3.7 into $redis_shard_venv"
  /usr/bin/python3 -m venv --system-site-packages "$redis_shard_venv"
  "$redis_shard_venv/bin/pip" install --quiet --disable-pip-version-check --no-deps redis-shard==0.3.7
  }
fi
# npm memjs for the memjs flavour's peer test, pinned, in its own
# target/memjs-peer (an install there never prunes node-peer's packages).
memjs_peer=target/memjs-peer
if [ ! -f "$memjs_peer/node_modules/memjs/package.json" ] \
  || ! grep -q '"version": "1.3.2"' "$memjs_peer/node_modules/memjs/package.json"; then
  other "npm memjs@1.3.2 in $memjs_peer: run scripts/deps.sh" && {
  echo "deps: installing npm memjs@1.3.2 into $memjs_peer"
  mkdir -p "$memjs_peer"
  (cd "$memjs_peer" && npm install --no-audit --no-fund --silent --no-save memjs@1.3.2)
  }
fi
# The PyPI clients Debian does not package (hashring for hashring-py,
# emcache), pinned, in a venv of their own: target/pypi-peers.
pypi_peers=target/pypi-peers
if ! "$pypi_peers/bin/python" -c 'import importlib.metadata as m, sys
sys.exit(not all(m.version(p) == v for p, v in [("hashring", "1.5.1"), ("emcache", "1.3.3")]))' >/dev/null 2>&1; then
  other "PyPI hashring==1.5.1 and emcache==1.3.3 in $pypi_peers: run scripts/deps.sh" && {
  echo "deps: installing PyPI hashring==1.5.1 and emcache==1.3.3 into $pypi_peers"
  python3 -m venv "$pypi_peers"
  "$pypi_peers/bin/pip" install --quiet --disable-pip-version-check hashring==1.5.1 emcache==1.3.3
  }
fi
# npm memcache, 1.10.0 (npm-memcache) and 1.5.0 (npm-memcache-sha1), each in
# a directory of its own.
for pinned in 1.10.0:target/npm-memcache-peer 1.5.0:target/npm-memcache15-peer; do
  version=${pinned%%:*} dir=${pinned#*:}
  if [ ! -f "$dir/node_modules/memcache/package.json" ] \
    || ! grep -q "\"version\": \"$version\"" "$dir/node_modules/memcache/package.json"; then
    other "npm memcache@$version in $dir: run scripts/deps.sh" && {
    echo "deps: installing npm memcache@$version into $dir"
    mkdir -p "$dir"
    (cd "$dir" && npm install --no-audit --no-fund --silent --no-save "memcache@$version")
    }
  fi
done
if [ "${#missing_other[@]}" -gt 0 ] || [ "$debian_missing" = 1 ]; then
  [ "${#missing_other[@]}" -eq 0 ] || printf 'missing (not from Debian): %s\n' "${missing_other[@]}" >&2
  exit 1
fi
echo "deps: all test dependencies are present"
