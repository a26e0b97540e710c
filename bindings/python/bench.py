"""Per-key lookup cost from Python, measured like bindings/php/bench.php: the
median over 15 rounds of (time to look up every key) / keys, after one
warm-up round. Run by scripts/bench.sh with the installed package:

    python bindings/python/bench.py SERVERS_FILE SERVER_COUNT KEYS_FILE

prints NAME<TAB>SERVERS<TAB>NS_PER_KEY for Ring.server_index (one call into
the native module per key) and Ring.server_indices (one call for all keys),
on the libketama ring of the file read with the original's parser.
"""

import os
import sys
import time

# This file sits beside the package's sources (ketama/): measure the
# installed package, not a checkout's build of them.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import ketama  # noqa: E402

ROUNDS = 15
SINGLE = "python Ring.server_index (native, single)"
BATCH = "python Ring.server_indices (native, batch)"


def median_ns_per_key(run, keys):
    """Median ns per key of `run` over ROUNDS timed runs."""
    run()
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter_ns()
        run()
        samples.append((time.perf_counter_ns() - start) / keys)
    samples.sort()
    return samples[ROUNDS // 2]


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: python bench.py SERVERS_FILE SERVER_COUNT KEYS_FILE")
    path, count, keys_file = sys.argv[1:]
    with open(keys_file) as f:
        keys = f.read().splitlines()
    ring = ketama.Ring.from_file(path, "libketama", None, "libketama")
    server_index = ring.server_index

    def single():
        for key in keys:
            server_index(key)

    def batch():
        ring.server_indices(keys)

    print(f"{SINGLE}\t{count}\t{median_ns_per_key(single, len(keys)):.1f}")
    print(f"{BATCH}\t{count}\t{median_ns_per_key(batch, len(keys)):.1f}")


if __name__ == "__main__":
    main()
