#!/bin/sh
# Compiles the Java binding and examples into target/java/classes and runs a class:
#   bindings/java/run.sh net.ketama.examples.SpymemcachedExample 127.0.0.1:11211 127.0.0.1:11212
# Needs openjdk-17-jdk-headless, libjna-java and libspymemcached-java. The library is
# KETAMA_LIBRARY if set, else this repository's target/release or target/debug build.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
jars=/usr/share/java/jna.jar:/usr/share/java/spymemcached.jar
classes="$root/target/java/classes"
if [ -z "${KETAMA_LIBRARY:-}" ]; then
    for build in release debug; do
        if [ -f "$root/target/$build/libketama.so" ]; then
            KETAMA_LIBRARY="$root/target/$build/libketama.so"
            break
        fi
    done
fi
: "${KETAMA_LIBRARY:?libketama.so not found: run cargo build or set KETAMA_LIBRARY}"
mkdir -p "$classes"
javac -d "$classes" -cp "$jars" $(find "$root/bindings/java/src/main" "$root/bindings/java/examples" -name '*.java')
exec java -cp "$classes:$jars" -Dketama.library="$KETAMA_LIBRARY" "$@"
