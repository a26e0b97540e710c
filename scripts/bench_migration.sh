#!/usr/bin/env bash
# A pool moved under load against real memcached servers (the scenario of
# crates/ketama-core/tests/migration/under_load.rs): 3 -> 4 servers and pecl-memcache ->
# libmemcached on the same servers, switching rings at once and in each
# migration mode, then warm-up with an old server killed during the move.
# Four client threads, Zipf keys (KEYS of them, 1,000,000, all filled before
# each run), 90 % gets, release build; a warm-up of WARMUP seconds (60), a
# quarter of it before, between the phases and after.
#
# Writes bench-results/migration.md (the hit ratio before, during and after
# each move, its lowest second, stale reads counted) and
# bench-results/migration-hit-ratio.svg (hit ratio per second); `--publish`
# copies the SVG to docs/.
set -euo pipefail
cd "$(dirname "$0")/.."
WARMUP=${WARMUP:-60}
KEYS=${KEYS:-1000000}
out=bench-results
mkdir -p "$out"
command -v memcached >/dev/null || { echo "bench-migration: memcached is missing (scripts/deps.sh installs it)" >&2; exit 1; }
cut -d' ' -f1-3 /proc/loadavg > "$out/migration-load.txt"
KETAMA_MIGRATION_SECONDS=$WARMUP KETAMA_MIGRATION_KEYS=$KEYS KETAMA_MIGRATION_BUCKET_MS=1000 \
KETAMA_MIGRATION_CSV=$PWD/$out/migration.csv \
  cargo test --release --quiet -p ketama-core --test migration -- under_load --nocapture --test-threads 1 \
  | tee "$out/migration.log"
cut -d' ' -f1-3 /proc/loadavg >> "$out/migration-load.txt"
python3 scripts/migration_plot.py "$out/migration.csv" "$out/migration.log" \
  "$out/migration-hit-ratio.svg" > "$out/migration.md"
cat "$out/migration.md"
if [ "${1:-}" = "--publish" ]; then
  cp "$out/migration-hit-ratio.svg" docs/migration-hit-ratio.svg
fi
