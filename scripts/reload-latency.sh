#!/bin/sh
# Reload latency benchmark (not part of `make test`): readers calling the
# compat roll (ketama_roll + ketama_get_server + ketama_smoke) or
# ketama_file_ring_current (+ ketama_find_server_index + ketama_ring_free)
# back to back while a writer rewrites the server file in place every 1, 20,
# 100 or 500 ms, and with no writer as a baseline; 1 and 6 readers. Prints a
# Markdown table (calls, p50, p99, p99.9, max, failed, blocked, not preempted) with the machine's
# load before and after. See docs/reload-latency.md.
#
#   scripts/reload-latency.sh [SECONDS [CASE...]]   default 5 s per case (20 cases)
#
# A CASE (API-READERS-PAUSE: compat-6-20, file-ring-1-0; pause 0 = no writer)
# runs only that case, to run a row the machine disturbed again.
#
# KETAMA_LIB_DIR=DIR benchmarks the libketama.so in DIR (another build, to
# compare) instead of building this checkout's.
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-5}
if [ $# -gt 0 ]; then shift; fi
work=target/reload-latency
rm -rf "$work"
mkdir -p "$work/files"
if [ -n "${KETAMA_LIB_DIR:-}" ]; then
    lib=$(cd "$KETAMA_LIB_DIR" && pwd)
else
    nice -n 10 cargo build --release -p ketama --lib --quiet
    lib=$PWD/target/release
fi
# The SONAME is libketama.so.1; cargo only writes libketama.so.
ln -sf "$lib/libketama.so" "$work/libketama.so.1"
gcc -std=c11 -Wall -Wextra -O2 -pthread -Iinclude benches/c/reload_latency.c \
    -L"$lib" -Wl,-rpath,"$PWD/$work" -lketama -o "$work/reload_latency"
echo "library: $lib/libketama.so"
echo "load average (1, 5, 15 min) before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
"$work/reload_latency" "$work/files" "$seconds" "$@"
echo "load average (1, 5, 15 min) after: $(cut -d' ' -f1-3 /proc/loadavg)"
