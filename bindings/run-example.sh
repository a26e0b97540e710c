#!/bin/sh
# Runs one binding example against three fresh memcached servers on loopback,
# started here and stopped (by PID) when the example ends:
#   bindings/run-example.sh php|java|c
# Needs memcached, and php8.2-cli + php8.2-memcached, or openjdk-17-jdk-headless +
# libjna-java + libspymemcached-java, or gcc + libmemcached-dev; and `cargo build` first.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
base=${KETAMA_EXAMPLE_PORT:-21211}
user=""
[ "$(id -u)" = 0 ] && user="-u nobody"
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done' EXIT INT TERM
servers=""
for i in 0 1 2; do
    port=$((base + i))
    memcached $user -l 127.0.0.1 -p "$port" -U 0 -m 16 &
    pids="$pids $!"
    servers="$servers 127.0.0.1:$port"
done
sleep 0.3
case "${1:-}" in
    php) php "$root/bindings/php/examples/memcached_ring.php" $servers ;;
    java) "$root/bindings/java/run.sh" net.ketama.examples.SpymemcachedExample $servers ;;
    c) "$root/bindings/c/run.sh" $servers ;;
    *) echo "usage: $0 php|java|c" >&2; exit 2 ;;
esac
