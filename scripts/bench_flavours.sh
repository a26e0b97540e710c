#!/usr/bin/env bash
# Every flavour's single lookup beside its key-hash floor (benches/flavours.rs,
# criterion, 100 servers, 65,536 keys per iteration): runs the benchmark and
# prints a Markdown table of median ns per key and the lookup/floor ratio.
# Arguments go to criterion (e.g. a flavour name to measure only it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --quiet --bench flavours -- "$@" >&2
python3 - <<'PY'
import json, pathlib
root = pathlib.Path("target/criterion/flavour")
def median(kind, name):
    f = root / kind / name / "new" / "estimates.json"
    return json.loads(f.read_text())["median"]["point_estimate"] / 65536 if f.exists() else None
names = sorted(p.name for p in (root / "lookup").iterdir() if p.is_dir() and p.name != "report")
print("| flavour | key hash alone (ns/key) | lookup (ns/key) | lookup / hash |")
print("|---|---|---|---|")
for name in names:
    floor, lookup = median("hash_floor", name), median("lookup", name)
    if floor and lookup:
        print(f"| `{name}` | {floor:.1f} | {lookup:.1f} | {lookup / floor:.2f}× |")
PY
