#!/bin/sh
# Contention benchmark (not part of `make test`): 16 writers appending at
# full rate to one set on a memcached started on 127.0.0.1, compacted with
# CAS on the one list, then by flipping two lists. Writes docs/contention.svg
# (value size over time) and docs/contention.csv, and prints the figures.
#
#   scripts/contention.sh [SECONDS]     default 60 s per mode
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-60}
nice -n 10 cargo build --release --example contention
exec nice -n 10 target/release/examples/contention --seconds "$seconds" --writers 16 --compactors 4 --out docs
