"""Replica lists for each key read from stdin, for tests/bindings/replicas.rs:
python find_replicas.py SIZES CASES_FILE. SIZES is a comma-separated list of
replica counts; each line of CASES_FILE is SERVERS_FILE<TAB>FLAVOUR<TAB>OUTFILE,
and OUTFILE gets KEY<TAB>N<TAB>I,J,... (Ring.replicas) per key and count."""

import sys

import ketama

sizes = [int(n) for n in sys.argv[1].split(",")]
keys = sys.stdin.buffer.read().decode("utf-8").split("\n")
if keys and keys[-1] == "":
    keys.pop()
with open(sys.argv[2], encoding="utf-8") as cases:
    for case in cases.read().splitlines():
        servers, flavour, out = case.split("\t")
        ring = ketama.Ring.from_file(servers, flavour)
        lines = []
        for key in keys:
            for n in sizes:
                listed = ",".join(str(i) for i in ring.replicas(key, n))
                lines.append(f"{key}\t{n}\t{listed}\n")
        with open(out, "w", encoding="utf-8") as f:
            f.write("".join(lines))
