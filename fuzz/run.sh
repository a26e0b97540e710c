#!/bin/sh
# Coverage-guided fuzzing of the set decoders, the server-list readings and the multi-lane MD5 with cargo-fuzz on the stable
# toolchain (RUSTC_BOOTSTRAP=1 unlocks the sanitizer flags cargo-fuzz uses).
# Usage: fuzz/run.sh [SECONDS_PER_TARGET]   (default 60)
# Needs: cargo install cargo-fuzz; a C++ compiler (Debian g++).
set -eu
cd "$(dirname "$0")/.."
seconds="${1:-60}"
command -v cargo-fuzz >/dev/null || { echo "cargo-fuzz is missing: cargo install cargo-fuzz" >&2; exit 1; }
for target in decoders round_trip server_lists md5_lanes; do
    work="fuzz/target/corpus-$target"
    mkdir -p "$work"
    case $target in
        md5_lanes) seeds="" ;;
        server_lists) seeds=fuzz/corpus/server_lists ;;
        *) seeds=fuzz/corpus/decoders ;;
    esac
    RUSTC_BOOTSTRAP=1 cargo fuzz run -O "$target" "$work" $seeds -- \
        -max_total_time="$seconds" -max_len=4096
done
