#!/bin/sh
# Builds and runs the C example against this repository's libketama:
#   bindings/c/run.sh 127.0.0.1:11211 127.0.0.1:11212 127.0.0.1:11213
# Needs gcc and libmemcached-dev; uses target/release or target/debug (cargo build).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
for build in release debug; do
    if [ -f "$root/target/$build/libketama.so" ]; then lib="$root/target/$build"; break; fi
done
: "${lib:?libketama.so not found: run cargo build}"
out="$root/target/c-examples"
mkdir -p "$out"
# The SONAME is libketama.so.1; cargo only writes libketama.so.
ln -sf "$lib/libketama.so" "$out/libketama.so.1"
gcc -std=c11 -Wall -Wextra -O2 -I"$root/include" "$root/bindings/c/examples/libmemcached_ring.c" \
    -o "$out/libmemcached_ring" -L"$lib" -Wl,-rpath,"$out" -lketama -lmemcached
exec "$out/libmemcached_ring" "$@"
