#!/usr/bin/env bash
# The PHP binding where PHP users run it: a private PHP-FPM (Debian's
# php8.2-fpm, its default php.ini and conf.d plus the ini snippet php-ketama
# ships, pointed at bindings/php: ffi.preload + opcache.preload), one static
# worker on a unix socket in target/bench, driven by libfcgi's cgi-fcgi (part 3
# also by scripts/fcgi_client.py).
#
#   1. Per FastCGI request: a user request (Ring::fromFile on a server file,
#      then server(key) for one key; bindings/php/bench.php with `key`), as
#      FPM itself times it (access log %{micro}d: accept to end of response),
#      median over REQUESTS requests after a warm-up; beside an empty PHP
#      script in the same FPM, and the same request with ffi.enable=true and
#      no preload (the binding then runs FFI::cdef in every request).
#   2. Per call inside one FPM request: bindings/php/bench.php's single-key
#      and batch rows, beside the same rows from the CLI in the same run.
#   3. The user request by pool size (10 to 10,000 servers), one fresh FPM
#      per size (bindings/php/bench_request.php): Ring::fromFile,
#      Ring::fromServers (the list from a PHP configuration file), the
#      php_ketama functions (ketama_roll + ketama_get_server), php-memcached
#      with a persistent instance (the anchor: its continuum built once per
#      worker) and the empty request. Each row's first request (it builds
#      the ring; the workers' shared continua go to a fresh directory, so
#      that it rolls) is timed apart, with the worker's resident memory
#      after it; then TABLE_REQUESTS (300) rounds of one request per row,
#      and the median of each row. Once per driver in TABLE_DRIVERS (both
#      by default): `client`, the requests sent as a web server sends them,
#      from one long-lived process with a connection per request
#      (scripts/fcgi_client.py; nginx's default); `cgi-fcgi`, one cgi-fcgi
#      process started per request (its fork and exec on the same cores run
#      between two requests of the worker: every request starts with cold
#      caches, which multiplies what each one costs).
#
#   4. Memory across workers: one FPM with WORKERS (4) static workers, each
#      made to serve Ring::fromFile (then, in another FPM, the compat pair
#      ketama_roll + ketama_get_server) on the 10,000-server file, one after the
#      other (each request held open so that the next goes to another
#      worker), timed inside the request: the first worker rolls the ring,
#      the others map the continuum it published (sharing on: the directory
#      KETAMA_SHARED_RINGS names, a fresh one under target/bench) or roll it
#      too (KETAMA_SHARED_RINGS=off in the pool's environment); then each
#      worker's VmRSS and Pss (smaps_rollup: shared pages divided among the
#      processes mapping them).
#
# Writes bench-results/php-fpm.md (a section scripts/bench_report.py appends
# to results.md) and bench-results/php-fpm.tsv (the raw figures). Run by
# scripts/bench.sh; can run alone after `cargo build --release`
# (TABLE_ONLY=1: parts 3 and 4 alone).
#
# KETAMA_INSTALLED=ROOT takes the library and the binding from the Debian
# packages libketama1 and php-ketama as installed under ROOT: `/` after
# `dpkg -i`, or a directory the .debs were unpacked into with `dpkg -x`
# (target/deb holds them after `make deb`); the snippet is the package's
# own ketama.ini, and the requests load the binding as the package's users
# do (`require_once 'Ketama/autoload.php'`).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench-results
work=$PWD/target/bench/php-fpm
REQUESTS=${REQUESTS:-2000}
WARMUP=200
mkdir -p "$out" "$work"
installed=${KETAMA_INSTALLED:-}
if [ -n "$installed" ]; then
  installed=$(cd "$installed" && pwd)
  library_dir=${installed%/}/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
  php_dir=${installed%/}/usr/share/php/Ketama
  for f in "$library_dir/libketama.so.1" "$php_dir/preload.php" "${installed%/}/etc/php/8.2/mods-available/ketama.ini"; do
    [ -f "$f" ] || { echo "bench-php-fpm: $f is missing: install libketama1 and php-ketama under $installed" >&2; exit 1; }
  done
  # The package's snippet, pointed at ROOT, and ROOT's /usr/share/php on the include_path.
  snippet=$(sed "s|/usr/share/php/Ketama/|$php_dir/|" "${installed%/}/etc/php/8.2/mods-available/ketama.ini"
    echo "include_path=\".:${installed%/}/usr/share/php:/usr/share/php\"")
  layout=debian
  origin="the Debian packages libketama1 and php-ketama as installed under $installed"
else
  library_dir=$PWD/target/release
  [ -f "$library_dir/libketama.so" ] || { echo "bench-php-fpm: build the release library first (cargo build --release)" >&2; exit 1; }
  ln -sf libketama.so "$library_dir/libketama.so.1"
  snippet=$(sed "s|/usr/share/php/Ketama/|$PWD/bindings/php/|" packaging/deb/php-ketama.ini)
  layout=checkout
  origin="this checkout's release build and bindings/php"
fi
for tool in /usr/sbin/php-fpm8.2 php cgi-fcgi; do
  command -v "$tool" >/dev/null || { echo "bench-php-fpm: $tool is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done

TABLE_REQUESTS=${TABLE_REQUESTS:-300}
for n in 10 100 1000 10000; do
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "10.%d.%d.%d:11211\t100\n", int(i / 65536), int(i / 256) % 256, i % 256 }' > "$work/servers$n"
  awk -v n="$n" 'BEGIN { print "<?php return ["; for (i = 0; i < n; i++) printf "  \"10.%d.%d.%d:11211\" => 100,\n", int(i / 65536), int(i / 256) % 256, i % 256; print "];" }' > "$work/servers$n.php"
done
python3 -c '
state = 12345
for _ in range(65536):
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    print("user:%d" % (state >> 24))
' > "$work/keys"
echo '<?php echo "ok\n";' > "$work/empty.php"
bench_php=$PWD/bindings/php/bench.php
chmod -R a+rX "$work"

fpm_pid=""
stop_fpm() {
  if [ -n "$fpm_pid" ]; then
    kill -TERM "$fpm_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$fpm_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$fpm_pid" 2>/dev/null || true
    wait "$fpm_pid" 2>/dev/null || true
    fpm_pid=""
  fi
}
trap stop_fpm EXIT

# start_fpm NAME INI_TEXT [WORKERS [POOL_LINES]]: a master with WORKERS (1) static workers, INI_TEXT as
# an extra conf.d file, POOL_LINES added to the pool's configuration (env[NAME] = value).
start_fpm() {
  local name=$1 ini=$2 workers=${3:-1} pool=${4:-} dir=$work/$1
  rm -rf "$dir" && mkdir -p "$dir/conf.d" && chmod 755 "$dir"
  printf '%s\n' "$ini" > "$dir/conf.d/30-bench.ini"
  local user=""
  [ "$(id -u)" -eq 0 ] && user=$'user = www-data\ngroup = www-data'
  cat > "$dir/php-fpm.conf" <<EOF
[global]
pid = $dir/fpm.pid
error_log = $dir/fpm.log
daemonize = no
[bench]
listen = $dir/fpm.sock
listen.mode = 0600
$user
pm = static
pm.max_children = $workers
access.log = $dir/access.log
access.format = "%{micro}d %s %q"
$pool
EOF
  PHP_INI_SCAN_DIR=":$dir/conf.d" LD_LIBRARY_PATH=$library_dir \
    /usr/sbin/php-fpm8.2 --nodaemonize --fpm-config "$dir/php-fpm.conf" </dev/null >/dev/null 2>&1 &
  fpm_pid=$!
  socket=$dir/fpm.sock
  for _ in $(seq 300); do [ -S "$socket" ] && return 0; sleep 0.1; done
  echo "bench-php-fpm: php-fpm did not start:" >&2; cat "$dir/fpm.log" >&2; exit 1
}

# ask SCRIPT QUERY: one FastCGI request; prints the body.
ask() {
  env -i REQUEST_METHOD=GET SCRIPT_FILENAME="$1" SCRIPT_NAME=/bench.php QUERY_STRING="$2" \
    cgi-fcgi -bind -connect "$socket" | tr -d '\r' | sed '1,/^$/d'
}

# per_request LABEL SCRIPT QUERY_PREFIX: median FPM duration (µs) of REQUESTS requests after WARMUP.
per_request() {
  local label=$1 script=$2 query=$3 log=$work/$current/access.log answer
  : > "$log"
  for i in $(seq $((WARMUP + REQUESTS))); do
    answer=$(ask "$script" "$query$i")
    case $answer in *:11211|ok) ;; *) echo "bench-php-fpm: $label: unexpected answer: $answer" >&2; exit 1 ;; esac
  done
  local median
  median=$(tail -n "$REQUESTS" "$log" | awk '$2 == 200 { print $1 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  printf '%s\t%s\n' "$label" "$median" >> "$out/php-fpm.tsv"
}

: > "$out/php-fpm.tsv"
cut -d' ' -f1-3 /proc/loadavg > "$work/load"

if [ "${TABLE_ONLY:-0}" != 1 ]; then
echo "bench-php-fpm: preloaded (the php-ketama snippet)"
current=preloaded
start_fpm "$current" "$snippet"
per_request "request: empty PHP script" "$work/empty.php" "n="
for n in 10 100; do
  per_request "request: Ring::fromFile + server(key), $n servers, preloaded" "$bench_php" "servers=$work/servers$n&key=user:"
done
for n in 10 100 1000 10000; do
  ask "$bench_php" "servers=$work/servers$n&count=$n&keys=$work/keys" | sed 's/^/call: /' >> "$out/php-fpm.tsv"
  php "$bench_php" "$work/servers$n" "$n" "$work/keys" | sed 's/^/call: /' >> "$out/php-fpm.tsv"
done
stop_fpm
fi

# fresh_shared_dir: an empty directory for the workers' shared continua
# (KETAMA_SHARED_RINGS), so that a first request finds no image published
# by an earlier run and rolls.
shared_dir=$work/shared-rings
fresh_shared_dir() {
  rm -rf "$shared_dir" && mkdir -m 700 "$shared_dir"
  [ "$(id -u)" -eq 0 ] && chown www-data:www-data "$shared_dir"
  return 0
}

# table_size N DRIVER: one fresh FPM worker; the first request of each case
# in turn (it builds the case's ring), recorded apart with the worker's
# resident memory after it; then TABLE_REQUESTS rounds, each one request of
# every case, interleaved so that drift over the run (load, a warming
# worker) falls on every case alike; the median of each case's rounds. A
# case whose requests fail three times (php-memcached aborting the worker;
# the master starts another) is left out of the rounds: `aborts`.
table_cases="empty fromFile fromServers compat memcached"
table_size() {
  local n=$1 driver=$2 log case answer first rss failed
  local script=$PWD/bindings/php/bench_request.php query="layout=$layout&servers=$work/servers$n&key=user:"
  current=table$n-$driver
  fresh_shared_dir
  start_fpm "$current" "$snippet" 1 "env[KETAMA_SHARED_RINGS] = \"$shared_dir\""
  log=$work/$current/access.log
  local -A firsts=() rsses=() left=()
  for case in $table_cases; do
    failed=0
    while :; do
      : > "$log"
      if [ "$driver" = client ]; then
        answer=$(python3 scripts/fcgi_client.py "$socket" "$script" --body "case=$case&$query" 2>/dev/null) || true
      else
        answer=$(ask "$script" "case=$case&${query}0" 2>/dev/null) || true
      fi
      case $answer in *:11211|ok) break ;; esac
      failed=$((failed + 1)); sleep 0.5
      [ "$failed" -lt 3 ] || break
    done
    if [ "$failed" -ge 3 ]; then firsts[$case]=""; rsses[$case]=""; continue; fi
    firsts[$case]=$(awk '{ t = $1 } END { print t }' "$log")
    rsses[$case]=$(ask "$script" "layout=$layout&case=rss")
    left[$case]=1
  done
  : > "$log"
  local queries=() c
  for c in $table_cases; do [ -n "${left[$c]:-}" ] && queries+=("case=$c&$query"); done
  if [ "$driver" = client ]; then
    python3 scripts/fcgi_client.py "$socket" "$script" --rounds "$TABLE_REQUESTS" "${queries[@]}" > "$work/$current/failed"
  else
    local i q
    : > "$work/$current/failed"
    for i in $(seq "$TABLE_REQUESTS"); do
      for q in "${queries[@]}"; do ask "$script" "$q$i" > /dev/null 2>&1 || true; done
    done
  fi
  for case in $table_cases; do
    local median=aborts
    if [ -n "${left[$case]:-}" ] && ! grep -q "^case=$case&" "$work/$current/failed"; then
      median=$(awk -v c="case=$case&" '$2 == 200 && index($3, c) == 1 { print $1 }' "$log" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    fi
    printf 'table: %s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$n" "$median" "${firsts[$case]}" "${rsses[$case]}" "$driver" >> "$out/php-fpm.tsv"
  done
  stop_fpm
}

for driver in ${TABLE_DRIVERS:-client cgi-fcgi}; do
  for n in 10 100 1000 10000; do
    echo "bench-php-fpm: the request table, $n servers, driven by $driver"
    table_size "$n" "$driver"
  done
done

# Part 4: WORKERS workers, each holding the 10,000-server ring of fromFile,
# with the continuum shared between them and without.
WORKERS=${WORKERS:-4}
script=$PWD/bindings/php/bench_request.php
for row in fromFile compat; do
  case=first; [ "$row" = compat ] && case=first_compat
  for sharing in on off; do
    echo "bench-php-fpm: memory across $WORKERS workers, $row, sharing $sharing"
    current=workers-$row-$sharing
    fresh_shared_dir
    setting=$shared_dir
    [ "$sharing" = off ] && setting=off
    start_fpm "$current" "$snippet" "$WORKERS" "env[KETAMA_SHARED_RINGS] = \"$setting\""
    # One after the other, each held 3 s after answering: each worker serves one.
    for i in $(seq "$WORKERS"); do
      first=$(ask "$script" "layout=$layout&case=$case&hold_ms=3000&servers=$work/servers10000&key=user:$i")
      printf 'first: %s %s\t%s\t%s\n' "$row" "$sharing" "$i" "$first" >> "$out/php-fpm.tsv"
    done
    sleep 3.2
    # WORKERS requests at once, each held open 0.5 s after answering: each worker serves one.
    for i in $(seq "$WORKERS"); do
      ask "$script" "layout=$layout&case=memory&hold=1&servers=$work/servers10000&key=user:$i" > "$work/workers.memory.$i" &
    done
    wait $(jobs -p | grep -vx "$fpm_pid") 2>/dev/null || true
    for i in $(seq "$WORKERS"); do
      printf 'workers: %s %s\t%s\n' "$row" "$sharing" "$(cat "$work/workers.memory.$i")" >> "$out/php-fpm.tsv"
    done
    stop_fpm
  done
done
rm -rf "$shared_dir"

if [ "${TABLE_ONLY:-0}" != 1 ]; then
echo "bench-php-fpm: ffi.enable=true, not preloaded"
current=ffi-enabled
start_fpm "$current" "ffi.enable=true"
for n in 10 100; do
  per_request "request: Ring::fromFile + server(key), $n servers, ffi.enable=true" "$bench_php" "servers=$work/servers$n&key=user:"
done
stop_fpm
fi
cut -d' ' -f1-3 /proc/loadavg >> "$work/load"

python3 - "$out/php-fpm.tsv" "$work/load" "$REQUESTS" "$TABLE_REQUESTS" "$origin" > "$out/php-fpm.md" <<'PY'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
loads = [l.split() for l in open(sys.argv[2])]
requests = sys.argv[3]
req = {r[0][len("request: "):]: r[1] for r in rows if r[0].startswith("request: ")}
calls = {}
for r in rows:
    if r[0].startswith("call: "):
        calls.setdefault(r[0][len("call: "):], {})[r[1]] = float(r[2])
print("## PHP in PHP-FPM\n")
print("`scripts/bench_php_fpm.sh`: a private PHP-FPM 8.2 (Debian's php8.2-fpm, default php.ini and "
      "conf.d, opcache on, JIT off) with the ini snippet php-ketama ships (`ffi.preload` + "
      "`opcache.preload`), one static worker on a unix socket. Load average at "
      f"the start: {', '.join(loads[0])}; at the end: {', '.join(loads[-1])}.\n")
if req:
    print(f"Per FastCGI request, as PHP-FPM times it (access log `%{{micro}}d`, accept to end of the "
          f"response), median of {requests} sequential requests after a warm-up; a user request reads "
          "the server file into a ring and looks up one key (`Ring::fromFile($file)->server($key)`):\n")
    print("| request | µs |\n|---|---|")
    for name, value in req.items():
        print(f"| {name} | {value} |")
table = [[r[0][len("table: "):]] + r[1:] for r in rows if r[0].startswith("table: ")]
if table:
    cases = [("fromFile", "`Ketama\\Ring::fromFile($f)->server($k)`"),
             ("fromServers", "`Ketama\\Ring::fromServers($array)->server($k)`"),
             ("compat", "php_ketama `ketama_roll($f)` + `ketama_get_server`"),
             ("memcached", "php-memcached, persistent `new Memcached('pool')` + `getServerByKey`"),
             ("empty", "empty request")]
    sizes = ["10", "100", "1000", "10000"]
    drivers = {"client": "sent as a web server sends them: one long-lived process, a connection per "
                         "request (`scripts/fcgi_client.py`)",
               "cgi-fcgi": "one `cgi-fcgi` process started per request (its fork and exec run on the "
                           "same cores between two requests: each request starts with cold caches)"}
    for driver in dict.fromkeys(r[5] for r in table):
        got = {(r[0], r[1]): r for r in table if r[5] == driver}
        print(f"\nThe request by pool size, {drivers.get(driver, driver)}; one fresh FPM worker per "
              f"size: median µs of {sys.argv[4]} rounds, each round one request of every row in turn, "
              "after each row's first request (which builds its ring: in parentheses); over the empty "
              "request of the same worker in brackets; `aborts`: the worker died):\n")
        print("| request | " + " | ".join(f"{int(s):,}" for s in sizes) + " |\n|---|" + "---|" * len(sizes))
        def cell(r, s):
            if r is None:
                return "n/a"
            empty = got.get(("empty", s))
            over = (f" [{int(r[2]) - int(empty[2]):+d}]" if r[0] != "empty" and empty
                    and r[2].isdigit() and empty[2].isdigit() else "")
            return f"{r[2]}{over} ({r[3] or 'aborts'})"
        for case, label in cases:
            print(f"| {label} | " + " | ".join(cell(got.get((case, s)), s) for s in sizes) + " |")
        print("\nThe worker's resident memory after the first request of each row (MiB, VmRSS; in the "
              "order run, each row adding its ring to the worker):\n")
        print("| after | " + " | ".join(f"{int(s):,}" for s in sizes) + " |\n|---|" + "---|" * len(sizes))
        for case, label in cases:
            mib = lambda r: "n/a" if r is None or not r[4].isdigit() else f"{int(r[4]) / 1024:.1f}"
            print(f"| {case} | " + " | ".join(mib(got.get((case, s))) for s in sizes) + " |")
    print(f"\nThe library and the binding: {sys.argv[5]}.")
# workers: [row, sharing, pid, rss, pss]; firsts: (row, sharing, pid) -> (order, µs)
workers = [r[0][len("workers: "):].split() + r[1:] for r in rows if r[0].startswith("workers: ")]
firsts = {tuple(r[0][len("first: "):].split()) + (r[2],): (r[1], r[3])
          for r in rows if r[0].startswith("first: ")}
if workers:
    count = len([w for w in workers if w[:2] == ["fromFile", "on"]])
    print(f"\n{count} workers, each after one request on the 10,000-server file (`fromFile`, or the "
          "compat pair `ketama_roll` + `ketama_get_server`), in the order they served it: the first "
          "request's time inside PHP (µs: the first worker rolls the ring; with sharing on the others "
          "map the continuum it published, and the compat records), then the worker's memory "
          "(MiB; Pss divides each shared page among the processes mapping it):\n")
    print("| request | sharing | worker | first request µs | VmRSS | Pss |\n|---|---|---|---|---|---|")
    for row in ["fromFile", "compat"]:
        for sharing in ["on", "off"]:
            rows_of = sorted(((order, pid, us) for (r, s, pid), (order, us) in firsts.items()
                              if (r, s) == (row, sharing)), key=lambda t: int(t[0]))
            memory = {w[2]: w[3:] for w in workers if w[:2] == [row, sharing]}
            for order, pid, us in rows_of:
                rss, pss = memory.get(pid, ["0", "0"])
                print(f"| {row} | {sharing} | {order} | {int(us):,} | {int(rss) / 1024:.1f} | "
                      f"{int(pss) / 1024:.1f} |")
if calls:
    print("\nPer call inside one request (`bindings/php/bench.php` run as an FPM request and from the CLI, "
          "same run, same keys; median ns per key, by number of servers):\n")
    sizes = ["10", "100", "1000", "10000"]
    def cells(values):
        return " | ".join(f"{values[s]:.1f}" if s in values else "n/a" for s in sizes)
    print("| call | " + " | ".join(sizes) + " |\n|---|" + "---|" * len(sizes))
    for cli in [name for name in calls if not name.endswith("-fcgi)")]:
        fpm = next((n for n in calls if n.startswith(cli[:-1] + ", ") and n.endswith("-fcgi)")), None)
        print(f"| {cli} (CLI) | {cells(calls[cli])} |")
        if fpm:
            print(f"| {fpm} | {cells(calls[fpm])} |")
            ratio = {s: calls[fpm][s] / calls[cli][s] for s in sizes if s in calls[fpm] and s in calls[cli]}
            print(f"| FPM ÷ CLI | " + " | ".join(f"{ratio[s]:.2f}×" if s in ratio else "n/a" for s in sizes) + " |")
PY
echo "bench-php-fpm: wrote $out/php-fpm.md"
