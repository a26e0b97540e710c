"""Turns the benchmark outputs into a markdown table and an SVG chart.

usage: bench_report.py OUT_DIR CRITERION_DIR
reads  OUT_DIR/peers.tsv (NAME<TAB>SERVERS<TAB>NS_PER_KEY from the C harness and
       the PHP, Java and Python binding benches, whose names start with "php " /
       "java " / "python ")
       CRITERION_DIR/<group>/<bench>[/<size>]/new/estimates.json (criterion medians)
       OUT_DIR/php-fpm.md when present (scripts/bench_php_fpm.sh), appended as is
writes OUT_DIR/results.md and OUT_DIR/lookup.svg
"""
import json
import os
import sys

SIZES = ["10", "100", "1000", "10000"]
KEYS_PER_ITERATION = 65536  # benches/ring.rs looks up this many keys per iteration


def criterion_median(root, *parts):
    path = os.path.join(root, *parts, "new", "estimates.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


NATIVE_SINGLE = "this library ketama_find_server (C harness)"
PHP_SINGLE = "php Ring::serverIndex (FFI, single)"
PHP_BATCH = "php Ring::serverIndices (FFI, batch)"
JAVA_SINGLE = "java Ring.serverIndex(key.getBytes(UTF_8)) (JNA, single)"
JAVA_BATCH = "java Ring.serverIndices(List<String>) (JNA, batch)"
SPY_LOCATOR = "java spymemcached KetamaNodeLocator.getPrimary"
OUR_LOCATOR = "java net.ketama.KetamaNodeLocator.getPrimary (JNA, spymemcached flavour)"
PY_SINGLE = "python Ring.server_index (native, single)"
PY_BATCH = "python Ring.server_indices (native, batch)"
BINDING_GOAL = 1.5  # issues 6, 11: batch per key from PHP, Java and Python within 1.5x the native single-key cost


DECODE_CASES = ["t1-compacted", "t1-compacted+tail", "t1-unsorted-dirty",
                "b1-compacted", "b1-compacted+tail", "b1-unsorted-dirty"]
DECODE_SIZES = ["1000", "20000"]
DECODE_GOAL = 1.0  # GiB/s, issue 14: unsorted and dirty values too


def decode_throughput(crit, case, size):
    """GiB/s of criterion's decode/ketama/<case>/<size> (bytes per median time), or None."""
    base = os.path.join(crit, "decode", "ketama_" + case, size, "new")
    median = criterion_median(crit, "decode", "ketama_" + case, size)
    try:
        with open(os.path.join(base, "benchmark.json")) as f:
            size_bytes = json.load(f)["throughput"]["Bytes"]
    except (OSError, KeyError, TypeError, ValueError):
        return None
    return size_bytes / median / 1.073741824 if median else None  # bytes/ns = GB/s; GiB/s


def decode_lines(crit):
    """Markdown lines: set codec decode throughput, and the goal check."""
    lines = ["", "Set codec decode (`cargo bench --bench setcodec -- decode`), GiB/s of value read (median):", "",
             "| value | " + " | ".join(f"{s} members" for s in DECODE_SIZES) + " |",
             "|---|" + "---|" * len(DECODE_SIZES)]
    for case in DECODE_CASES:
        cells = [decode_throughput(crit, case, s) for s in DECODE_SIZES]
        lines.append(f"| {case} | " + " | ".join("n/a" if v is None else f"{v:.2f}" for v in cells) + " |")
    return lines


def decode_goal(crit):
    """The goal line's (label, value, limit, unit): the slowest decode case at 20,000 members."""
    values = [decode_throughput(crit, case, "20000") for case in DECODE_CASES]
    worst = min((v for v in values if v is not None), default=None)
    return (f"T1/B1 decode, every value kind, 20000 members ≥ {DECODE_GOAL:g} GiB/s (slowest)", worst,
            DECODE_GOAL, "GiB/s")


def ratio(rows, numerator, denominator, size):
    """rows[numerator][size] / rows[denominator][size], or None when either is missing."""
    try:
        return float(rows[numerator][size]) / float(rows[denominator][size])
    except (KeyError, ValueError, ZeroDivisionError):
        return None


def binding_ratios(rows):
    """Markdown lines: the PHP, Java and Python bindings against the native single-key
    cost, and spymemcached's KetamaNodeLocator against this library's."""
    table = [
        ("PHP batch ÷ native single", PHP_BATCH, NATIVE_SINGLE),
        ("Java batch ÷ native single", JAVA_BATCH, NATIVE_SINGLE),
        ("Python batch ÷ native single", PY_BATCH, NATIVE_SINGLE),
        ("PHP single ÷ native single", PHP_SINGLE, NATIVE_SINGLE),
        ("Java single ÷ native single", JAVA_SINGLE, NATIVE_SINGLE),
        ("Python single ÷ native single", PY_SINGLE, NATIVE_SINGLE),
        ("spymemcached KetamaNodeLocator ÷ net.ketama.KetamaNodeLocator (JNA)", SPY_LOCATOR, OUR_LOCATOR),
        ("spymemcached KetamaNodeLocator ÷ Java batch", SPY_LOCATOR, JAVA_BATCH),
    ]
    lines = ["", "From PHP, Java and Python (same keys as the C harness; native single = `ketama_find_server` from C), "
             f"ratios; goal: batch ÷ native single ≤ {BINDING_GOAL}:", "",
             "| ratio | " + " | ".join(SIZES) + " |", "|---|" + "---|" * len(SIZES)]
    for label, numerator, denominator in table:
        cells = []
        for s in SIZES:
            r = ratio(rows, numerator, denominator, s)
            cells.append("n/a" if r is None else f"{r:.2f}×")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def goals(rows, md5, md5_many, roll, crit):
    """Markdown lines: the speed goals and this run's figure for each."""
    def value(name, size):
        try:
            return float(rows[name][size])
        except (KeyError, ValueError, TypeError):
            return None

    checks = []
    for size, limit in (("1000", 2.0), ("10000", 25.0)):
        ms = roll[size] / 1e6 if roll.get(size) else None
        checks.append((f"roll, {size} servers ≤ {limit:g} ms", ms, limit, "ms"))
    # From C the floor is ketama_hashi in the same harness run (MD5 of the
    # same keys, same process); from Rust it is criterion's MD5 floor.
    hashi = "this library ketama_hashi (MD5 floor) (C harness)"
    lookups = [
        ("cold lookup from C (ketama_find_server), 10000 servers", NATIVE_SINGLE, "10000", 1.3, hashi),
        ("cold lookup from Rust (ring.locate), 10000 servers", "ring.locate (Rust, single key)", "10000", 1.3, None),
        ("ketama_get_server from C, 1000 servers", "this library ketama_get_server (C harness)", "1000", 1.2, hashi),
    ]
    for label, name, size, limit, floor_name in lookups:
        v = value(name, size)
        floor = value(floor_name, size) if floor_name else md5
        checks.append((f"{label} ≤ {limit}× MD5", v / floor if v and floor else None, limit, "×"))
    for label, name, limit in (("PHP single ÷ native single", PHP_SINGLE, 1.6),
                               ("Java single ÷ native single", JAVA_SINGLE, 2.0),
                               ("Python single ÷ native single", PY_SINGLE, 1.6)):
        worst = max((r for r in (ratio(rows, name, NATIVE_SINGLE, s) for s in SIZES) if r), default=None)
        checks.append((f"{label} ≤ {limit}× (worst size)", worst, limit, "×"))
    checks.append(decode_goal(crit))
    lines = ["", "Goals, this run:", "", "| goal | measured | met |", "|---|---|---|"]
    for label, v, limit, unit in checks:
        shown = "n/a" if v is None else (f"{v:.2f} {unit}" if unit in ("ms", "GiB/s") else f"{v:.2f}×")
        met = "n/a" if v is None else ("yes" if (v >= limit if unit == "GiB/s" else v <= limit) else "no")
        lines.append(f"| {label} | {shown} | {met} |")
    lines += ["", "Single lookups against their cold floor (MD5 of the key plus one read at a random place "
              "in an array as large as the data the lookup reads: the ring's points and owners, or the "
              "`mcs` records, 28 bytes per point; same run):", "",
              "| lookup | " + " | ".join(SIZES) + " |", "|---|" + "---|" * len(SIZES)]
    for name, floor_name in (
            ("ring.locate (Rust, single key)", "MD5 + one read in an array the ring's size (cold floor)"),
            ("ketama_get_server (compat ABI, from Rust)",
             "MD5 + one read in an array the mcs records' size (compat cold floor)")):
        cells = []
        for s in SIZES:
            v, floor = value(name, s), value(floor_name, s)
            cells.append(f"{v / floor:.2f}×" if v and floor else "n/a")
        lines.append(f"| {name} ÷ its cold floor | " + " | ".join(cells) + " |")
    md5_labels = {size: md5_many * 40 * int(size) / 1e6 for size in ("1000", "10000")} if md5_many else {}
    lines += ["", "What bounds these figures:", "",
              "- Roll: the point labels are written straight into padded MD5 blocks and hashed in SIMD "
              "lanes (16 with AVX-512), then the `(point, server)` pairs are radix sorted: by their top 8 "
              "bits straight into the output arrays, then each of the 256 parts, which stays in cache, by "
              "its low 24 bits (up to 65,536 points, three 11-bit passes over the whole array). What "
              "remains is the MD5 work, 40 digests per server"
              + (f" (multi-lane MD5 alone, from this run: {md5_labels['1000']:.2f} ms at 1,000 servers, "
                 f"{md5_labels['10000']:.1f} ms at 10,000)" if md5_labels else "")
              + ", and first-touch page faults of the arrays (about 3 MB at 1,000 servers, 30 MB at 10,000).",
              "- Cold lookups: the index has at most 2^14 buckets (64 KiB) and stays in cache; inside a "
              "bucket the position is interpolated (hash-made points are spread evenly) and the search "
              "walks from there, so a lookup in a ring larger than the caches reads one line of points "
              "(the owner's line is prefetched at the same time): one miss to memory. The cold floor "
              "row measures MD5 plus exactly one such read in the same run; on this machine one random "
              "read beyond the 1 MiB L2 costs about as much as MD5 itself, so 1.3× MD5 at 10,000 "
              "servers (1.6 M points, 12.8 MB of points and owners) is below what any layout that "
              "needs one read can reach. `ketama_get_server` returns a pointer into the `mcs` array "
              "(28 bytes per point: 4.5 MB at 1,000 servers), and the caller reads that record: the "
              "same one miss (its floor row reads once in an array the records' size), which 1.2× MD5 "
              "leaves no room for.",
              "- PHP and Java single-key calls go through `ketama_find_server_index`, which returns "
              "the index itself (no struct to convert). PHP 8.2: an empty FFI call with the same three "
              "arguments costs about 83 ns (libffi prepares the call on every call), more than the 0.6 "
              "× native budget of the 1.6× goal. Java: the key is copied into a per-thread native buffer "
              "and the JNA direct call takes only numbers (about 85 ns with the copy); the batch calls "
              "pay the crossing once.",
              "- libmemcached at 1,000 and 10,000 servers: Debian's libmemcached 1.1.4 is built without "
              "NDEBUG, and `update_continuum` asserts servers × 100 ≤ MEMCACHED_CONTINUUM_SIZE (10,000), "
              "so `memcached_server_add` aborts at the 101st server in any program, not only in this "
              "harness; builds with NDEBUG skip the check and serve larger pools."]
    return lines


def main():
    out, crit = sys.argv[1], sys.argv[2]
    rows = {}  # name -> {size: value}
    with open(os.path.join(out, "peers.tsv")) as f:
        for line in f:
            name, size, value = line.rstrip("\n").split("\t")
            binding = name.startswith(("php ", "java ", "python "))
            rows.setdefault(name if binding else name + " (C harness)", {})[size] = value
    per_key = lambda v: None if v is None else v / KEYS_PER_ITERATION
    md5 = per_key(criterion_median(crit, "lookup", "md5_floor"))
    md5_many = per_key(criterion_median(crit, "lookup", "md5_many_floor"))
    criterion_rows = [
        ("ring.locate (Rust, single key)", "ring_locate"),
        ("ring.find_server_indices (Rust, batch)", "ring_batch"),
        ("ketama_get_server (compat ABI, from Rust)", "ketama_get_server"),
        ("MD5 + one read in an array the ring's size (cold floor)", "md5_plus_one_read"),
        ("MD5 + one read in an array the mcs records' size (compat cold floor)", "md5_plus_one_mcs_read"),
        ("point search only, bucket index", "search_only_index"),
        ("point search only, binary search", "search_only_binary"),
    ]
    for label, bench in criterion_rows:
        rows[label] = {s: per_key(criterion_median(crit, "lookup", bench, s)) for s in SIZES}
    roll = {s: criterion_median(crit, "roll", "ring_new", s) for s in SIZES}

    def fmt(v):
        if v is None:
            return "n/a"
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                return v
        return f"{v:.1f}"

    lines = ["# Benchmark results", "",
             "Produced by `scripts/bench.sh --publish`. Taken on a 2-core machine shared with other "
             "jobs, so single runs are noisy (medians of repeated passes). The original libketama is "
             "compiled from the PyPI ketama==0.1.1 sources with its shared memory segment raised from "
             "512 KiB to 64 MiB and run with an unlimited stack, for the benchmark only, so that it "
             "holds 1,000 and 10,000 servers.", ""]
    load_file = os.path.join(out, "load.txt")
    if os.path.exists(load_file):
        with open(load_file) as f:
            loads = [line.split() for line in f if line.strip()]
        if len(loads) == 2:
            lines += [f"Load average (1, 5, 15 min) at the start of the run: {', '.join(loads[0])}; "
                      f"at the end: {', '.join(loads[1])} (on {os.cpu_count()} CPUs).", ""]
    lines.append(f"MD5 of one key alone (the floor): **{md5:.1f} ns** (md-5, scalar); "
                 f"multi-lane MD5: **{md5_many:.1f} ns/key**." if md5 and md5_many else "MD5 floor: n/a")
    lines += ["", "Lookup cost, ns per key (median), by number of servers (160 points each):", "",
              "| lookup | " + " | ".join(SIZES) + " | ÷ MD5 floor at 100 |", "|---|" + "---|" * (len(SIZES) + 1)]
    for name, values in rows.items():
        at100 = values.get("100")
        try:
            ratio = f"{float(at100) / md5:.2f}×" if md5 and at100 is not None else "n/a"
        except ValueError:
            ratio = "n/a"
        lines.append(f"| {name} | " + " | ".join(fmt(values.get(s)) for s in SIZES) + f" | {ratio} |")
    original = rows.get("libketama original ketama_get_server (C harness)", {})
    ours = rows.get("this library ketama_get_server (C harness)", {})
    lines += ["", "Speed-up of this library's `ketama_get_server` over the original, same run:", ""]
    for s in SIZES:
        try:
            lines.append(f"- {s} servers: {float(original[s]) / float(ours[s]):.2f}×")
        except (KeyError, ValueError):
            lines.append(f"- {s} servers: original {original.get(s, 'n/a')}")
    lines += binding_ratios(rows)
    lines += ["", "Roll (building the continuum), median:", ""]
    for s in SIZES:
        lines.append(f"- {s} servers: {roll[s] / 1e6:.2f} ms" if roll[s] else f"- {s} servers: n/a")
    lines += decode_lines(crit)
    lines += goals(rows, md5, md5_many, roll, crit)
    fpm_section = os.path.join(out, "php-fpm.md")  # written by scripts/bench_php_fpm.sh
    if os.path.exists(fpm_section):
        with open(fpm_section) as f:
            lines += ["", f.read().rstrip("\n")]
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")

    # The README's performance table (bench.sh --publish puts it between
    # the README's bench-table markers).
    def cell(v):
        shown = fmt(v)
        if shown.startswith(("aborted", "crashed")):
            return "aborts" if "assertion" in shown or "134" in shown else "crashes"
        try:
            return f"{float(shown):,.1f}"
        except ValueError:
            return shown
    readme_rows = [
        ("MD5 of the key alone (floor; `ketama_hashi` from C)", rows.get("this library ketama_hashi (MD5 floor) (C harness)", {})),
        ("original libketama `ketama_get_server` (shared memory raised to 64 MiB)", original),
        ("libmemcached `memcached_generate_hash` (KETAMA_WEIGHTED)", rows.get("libmemcached memcached_generate_hash (C harness)", {})),
        ("this library, `ketama_get_server` (compat, from C)", ours),
        ("this library, `ketama_find_server` (from C)", rows.get(NATIVE_SINGLE, {})),
        ("this library, `ketama_find_servers` (batch, from C)", rows.get("this library ketama_find_servers (batch) (C harness)", {})),
        ("PHP `Ring::serverIndex` (single)", rows.get(PHP_SINGLE, {})),
        ("PHP `Ring::serverIndices` (batch)", rows.get(PHP_BATCH, {})),
        ("Java `Ring.serverIndex` (single)", rows.get(JAVA_SINGLE, {})),
        ("Java `Ring.serverIndices` (batch)", rows.get(JAVA_BATCH, {})),
        ("spymemcached `KetamaNodeLocator.getPrimary`", rows.get(SPY_LOCATOR, {})),
        ("`net.ketama.KetamaNodeLocator.getPrimary` (this library via JNA)", rows.get(OUR_LOCATOR, {})),
    ]
    table = ["| lookup | 10 servers | 100 | 1,000 | 10,000 |", "| --- | --- | --- | --- | --- |"]
    for label, values in readme_rows:
        table.append(f"| {label} | " + " | ".join(cell(values.get(s)) for s in SIZES) + " |")
    table.append("")
    table.append("Roll (building the continuum): " + ", ".join(
        f"{int(s):,} servers {roll[s] / 1e6:.2f} ms" for s in SIZES if roll.get(s)) + ".")
    decoded = [(case, decode_throughput(crit, case, "20000")) for case in DECODE_CASES]
    if any(v is not None for _, v in decoded):
        table.append("")
        table.append("Set codec decode of a 20,000-member value: " + ", ".join(
            f"{case} {v:.2f} GiB/s" for case, v in decoded if v is not None) + ".")
    with open(os.path.join(out, "readme-table.md"), "w") as f:
        f.write("\n".join(table) + "\n")

    # Grouped bar chart: ns/key per server count for the main contenders.
    series = [
        ("MD5 alone (floor)", {s: md5 for s in SIZES}, "#999999"),
        ("original libketama", original, "#d62728"),
        ("libmemcached", rows.get("libmemcached memcached_generate_hash (C harness)", {}), "#ff7f0e"),
        ("this library, single key (ketama_find_server)", rows.get("this library ketama_find_server (C harness)", {}), "#1f77b4"),
        ("this library, batch", rows.get("this library ketama_find_servers (batch) (C harness)", {}), "#2ca02c"),
        ("PHP binding, batch", rows.get(PHP_BATCH, {}), "#9467bd"),
        ("Java binding, batch", rows.get(JAVA_BATCH, {}), "#8c564b"),
        ("Python binding, batch", rows.get(PY_BATCH, {}), "#e377c2"),
    ]

    def num(v):
        try:
            return float(v)
        except (TypeError, ValueError):
            return None

    top = max([num(v) or 0 for _, d, _ in series for v in d.values()] + [1])
    width, height, left, bottom = 760, 360, 60, 40
    group_w = (width - left - 20) / len(SIZES)
    bar_w = group_w / (len(series) + 1)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 20 + 16 * len(series)}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="16" font-size="14">Lookup cost, ns per key (lower is better)</text>']
    for i in range(5):
        y = height - bottom - (height - bottom - 30) * i / 4
        svg.append(f'<line x1="{left}" x2="{width - 20}" y1="{y:.0f}" y2="{y:.0f}" stroke="#ddd"/>')
        svg.append(f'<text x="{left - 6}" y="{y + 4:.0f}" text-anchor="end">{top * i / 4:.0f}</text>')
    for g, s in enumerate(SIZES):
        x0 = left + g * group_w + bar_w / 2
        svg.append(f'<text x="{x0 + bar_w * len(series) / 2:.0f}" y="{height - bottom + 16}" text-anchor="middle">{s} servers</text>')
        for k, (label, data, color) in enumerate(series):
            v = num(data.get(s))
            x = x0 + k * bar_w
            if v is None:
                svg.append(f'<text x="{x + bar_w / 2:.0f}" y="{height - bottom - 4}" text-anchor="middle" fill="{color}" font-size="10">✕</text>')
                continue
            h = (height - bottom - 30) * v / top
            svg.append(f'<rect x="{x:.1f}" y="{height - bottom - h:.1f}" width="{bar_w - 2:.1f}" height="{h:.1f}" fill="{color}"/>')
    for k, (label, _, color) in enumerate(series):
        y = height + 10 + 16 * k
        svg.append(f'<rect x="{left}" y="{y - 10}" width="12" height="12" fill="{color}"/><text x="{left + 18}" y="{y}">{label}</text>')
    svg.append(f'<text x="{left + 300}" y="{height + 10}">✕ = aborted (libmemcached as packaged by</text>')
    svg.append(f'<text x="{left + 312}" y="{height + 26}">Debian: continuum-size assertion)</text>')
    svg.append("</svg>")
    with open(os.path.join(out, "lookup.svg"), "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
