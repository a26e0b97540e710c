#!/usr/bin/env bash
# Side-by-side benchmark, one command: this library against MD5 alone (the
# floor), the original libketama C code (PyPI ketama==0.1.1 sources, compiled
# here at bench time with a larger shared memory segment, never committed)
# and libmemcached, for 10, 100,
# 1,000 and 10,000 servers, and the PHP, Java and Python bindings (single key
# and batch) next to spymemcached's KetamaNodeLocator in the same JVM, the
# PHP binding preloaded in PHP-FPM (scripts/bench_php_fpm.sh: per request and
# per call, beside the CLI), the roll, and the set codec's decode throughput
# (T1/B1 compacted, with a tail, unsorted with churn). Writes bench-results/results.md (table with
# ratios) and bench-results/lookup.svg (chart); `--publish` copies both to
# docs/ and rewrites the README's performance table (between its
# bench-table markers).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --check >/dev/null || scripts/deps.sh
out=bench-results
work=target/bench
mkdir -p "$out" "$work"
: > "$out/peers.tsv"
rm -f "$out/php-fpm.md"

cut -d' ' -f1-3 /proc/loadavg > "$out/load.txt"   # the machine's load, start and end of the run
echo "bench: building the release library"
cargo build --release --quiet
ln -sf libketama.so target/release/libketama.so.1

for n in 10 100 1000 10000; do
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "10.%d.%d.%d:11211\t100\n", int(i / 65536), int(i / 256) % 256, i % 256 }' > "$work/servers$n"
done

# The original libketama creates a semaphore and a shared memory segment per
# server file it rolls, keyed ftok(FILE, 'R'), and never removes them. Record
# what exists under the keys of this benchmark's files now, and on exit (also
# after a crash or an interrupt) remove exactly the objects that appeared.
original_keys() {
  python3 -c 'import os, sys
for f in sys.argv[1:]:
    st = os.stat(f)
    print("0x%08x" % ((ord("R") << 24) | ((st.st_dev & 0xff) << 16) | (st.st_ino & 0xffff)))' "$@"
}
sysv_objects() {  # KEY... -> "s ID" and "m ID" lines, sorted
  { ipcs -s; ipcs -m; } 2>/dev/null | awk -v keys="$*" '
    BEGIN { n = split(keys, k, " "); for (i = 1; i <= n; i++) want[k[i]] = 1 }
    /Semaphore Arrays/ { kind = "s" } /Shared Memory Segments/ { kind = "m" }
    ($1 in want) { print kind, $2 }' | sort
}
bench_keys=$(original_keys "$work"/servers10 "$work"/servers100 "$work"/servers1000 "$work"/servers10000)
sysv_before=$(sysv_objects $bench_keys)
remove_original_sysv_objects() {
  comm -13 <(printf '%s\n' "$sysv_before") <(sysv_objects $bench_keys) |
    while read -r kind id; do [ -n "$id" ] && ipcrm -"$kind" "$id"; done
}
trap remove_original_sysv_objects EXIT

# 65,536 random keys, the same as benches/c/lookup_peers.c generates, for the PHP and Java benches.
python3 -c '
state = 12345
for _ in range(65536):
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    print("user:%d" % (state >> 24))
' > "$work/keys"

echo "bench: fetching the original libketama C sources (PyPI ketama==0.1.1)"
if [ ! -f "$work/ketama-0.1.1/src/ketama.c" ]; then
  target/oracle-venv/bin/pip download --quiet --no-deps --no-binary :all: -d "$work" ketama==0.1.1
  tar -xzf "$work/ketama-0.1.1.tar.gz" -C "$work"
fi
# The original cannot hold 1,000 or 10,000 servers as released: it copies the
# continuum into a 512 KiB shared memory segment (MC_SHMSIZE, room for 18,724
# points = 117 servers) after building it in a stack array of 28 bytes per
# point (44.8 MB at 10,000 servers). For this benchmark only, a copy of the
# downloaded sources gets MC_SHMSIZE = 64 MiB and runs with an unlimited
# stack; nothing else changes (same hashing, qsort and search).
orig="$work/ketama-0.1.1-large"
rm -rf "$orig" && cp -r "$work/ketama-0.1.1/src" "$orig"
sed -i 's/^#define MC_SHMSIZE .*/#define MC_SHMSIZE 67108864 \/\/ 64 MiB: raised for the benchmark/' "$orig/ketama.h"
grep -q 'MC_SHMSIZE 67108864' "$orig/ketama.h"
gcc -O2 -DPEER_ORIGINAL -I"$orig" -Ibenches/c/python-shim benches/c/lookup_peers.c "$orig/ketama.c" "$orig/md5.c" -lm -o "$work/peer_original"
gcc -O2 -DPEER_THIS_LIBRARY -Iinclude benches/c/lookup_peers.c -Ltarget/release -Wl,-rpath,"$PWD/target/release" -lketama -o "$work/peer_this"
gcc -O2 -DPEER_LIBMEMCACHED benches/c/lookup_peers.c -lmemcached -o "$work/peer_libmemcached"

for n in 10 100 1000 10000; do
  echo "bench: C peers, $n servers"
  for peer in this original libmemcached; do
    status=0
    (ulimit -s unlimited; exec "$work/peer_$peer" "$work/servers$n" "$n") >> "$out/peers.tsv" 2> "$work/stderr" || status=$?
    if [ "$status" -ne 0 ] && [ "$peer" = libmemcached ] && grep -q 'MEMCACHED_CONTINUUM_SIZE' "$work/stderr"; then
      # Debian's libmemcached 1.1.4 is built without NDEBUG, so update_continuum's
      # stale check (servers x 100 <= MEMCACHED_CONTINUUM_SIZE = 10,000) aborts
      # memcached_server_add past 100 servers; builds with NDEBUG skip it.
      printf '%s\t%s\t%s\n' "libmemcached memcached_generate_hash" "$n" \
        "aborted: Debian build keeps the assertion servers × 100 ≤ 10,000" >> "$out/peers.tsv"
    elif [ "$status" -ne 0 ]; then
      case $peer in
        original) name="libketama original ketama_get_server" ;;
        libmemcached) name="libmemcached memcached_generate_hash" ;;
        *) name="this library ketama_get_server" ;;
      esac
      printf '%s\t%s\tcrashed (exit %s)\n' "$name" "$n" "$status" >> "$out/peers.tsv"
    fi
  done
done

echo "bench: installing the Python binding into $work/python-venv"
rm -rf "$work/python-venv"
/usr/bin/python3 -m venv "$work/python-venv"
# maturin (from the wheelhouse scripts/deps.sh fills) builds the extension module, release profile.
"$work/python-venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index \
  --find-links target/python-wheels ./bindings/python

echo "bench: compiling the Java binding and its bench"
jars=/usr/share/java/jna.jar:/usr/share/java/spymemcached.jar
rm -rf "$work/java-classes"
javac -d "$work/java-classes" -cp "$jars" $(find bindings/java/src/main bindings/java/bench -name '*.java')
library="$PWD/target/release/libketama.so"
for n in 10 100 1000 10000; do
  echo "bench: PHP, Java and Python bindings, $n servers"
  KETAMA_LIBRARY="$library" php bindings/php/bench.php "$work/servers$n" "$n" "$work/keys" >> "$out/peers.tsv" ||
    printf 'php bench\t%s\tfailed (exit %s)\n' "$n" "$?" >> "$out/peers.tsv"
  java -cp "$work/java-classes:$jars" -Dketama.library="$library" \
    -Dnet.spy.log.LoggerImpl=net.spy.memcached.compat.log.SunLogger \
    net.ketama.bench.LookupBench "$work/servers$n" "$n" "$work/keys" >> "$out/peers.tsv" ||
    printf 'java bench\t%s\tfailed (exit %s)\n' "$n" "$?" >> "$out/peers.tsv"
  "$work/python-venv/bin/python" bindings/python/bench.py "$work/servers$n" "$n" "$work/keys" >> "$out/peers.tsv" ||
    printf 'python bench\t%s\tfailed (exit %s)\n' "$n" "$?" >> "$out/peers.tsv"
done

echo "bench: the PHP binding in PHP-FPM"
scripts/bench_php_fpm.sh || echo "bench: scripts/bench_php_fpm.sh failed; results.md has no PHP-FPM section" >&2

echo "bench: criterion (lookup, batch, MD5 floor, cold floor, roll)"
cargo bench --quiet --bench ring -- --warm-up-time 1 --measurement-time 4 > "$work/criterion.log" 2>&1
echo "bench: criterion (set codec decode)"
cargo bench --quiet --bench setcodec -- --warm-up-time 1 --measurement-time 3 decode >> "$work/criterion.log" 2>&1

cut -d' ' -f1-3 /proc/loadavg >> "$out/load.txt"
python3 scripts/bench_report.py "$out" target/criterion
if [ "${1:-}" = "--publish" ]; then
  mkdir -p docs
  cp "$out/results.md" docs/benchmark-results.md
  cp "$out/lookup.svg" docs/benchmark-lookup.svg
  python3 - "$out/readme-table.md" README.md <<'PY'
import sys
table, readme = open(sys.argv[1]).read(), open(sys.argv[2]).read()
start, end = "<!-- bench-table:start -->\n", "<!-- bench-table:end -->"
head, rest = readme.split(start, 1)
open(sys.argv[2], "w").write(head + start + table + rest[rest.index(end):])
PY
fi
echo "bench: wrote $out/results.md and $out/lookup.svg"
