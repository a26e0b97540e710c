#!/usr/bin/env python3
"""Renders the migration benchmark (scripts/bench_migration.sh): a Markdown
table of hit ratios and an SVG chart of the hit ratio per second, from the
CSV the scenario writes (name, at_ms, gets, hits, before_ms, moving_ms) and
its log (the summary line of each run). Standard library only."""

import csv
import re
import sys
from collections import OrderedDict


def main(csv_path, log_path, svg_path):
    runs = OrderedDict()
    for row in csv.reader(open(csv_path)):
        # The run's name holds commas ("3 -> 4 servers, at once"): the
        # last five fields are the numbers.
        name, (at, gets, hits, before, moving) = ",".join(row[:-5]), row[-5:]
        run = runs.setdefault(name, {"before": int(before), "moving": int(moving), "points": []})
        run["points"].append((int(at) / 1000.0, int(gets), int(hits)))
    summary = {}
    for line in open(log_path):
        m = re.match(r"(.*?): hit ratio .*?; (\d+) reads checked, (\d+) stale, (\d+) writes acknowledged, "
                     r"(\d+) copies, (\d+) failed operations", line)
        if m:
            summary[m.group(1)] = [int(g) for g in m.groups()[1:]]
    print("| move | mode | hit ratio before | during the move | lowest second during | after | reads checked | stale reads |")
    print("|---|---|---|---|---|---|---|---|")
    for name, run in runs.items():
        before, moving = run["before"] / 1000.0, run["moving"] / 1000.0

        def ratio(lo, hi):
            g = sum(p[1] for p in run["points"] if lo <= p[0] < hi)
            h = sum(p[2] for p in run["points"] if lo <= p[0] < hi)
            return h / g if g else float("nan")

        during = [p[2] / p[1] for p in run["points"] if before <= p[0] < before + moving and p[1]]
        move, _, mode = name.partition(", ")
        reads, stale = summary.get(name, [0, 0])[:2]
        print("| %s | %s | %.4f | %.4f | %.4f | %.4f | %s | %d |" % (
            move, mode, ratio(0, before), ratio(before, before + moving),
            min(during) if during else float("nan"), ratio(before + moving, 1e9), format(reads, ","), stale))
    svg(runs, svg_path)


def svg(runs, path):
    width, height, left, top, panel = 900, 0, 60, 30, 260
    moves = OrderedDict()
    for name, run in runs.items():
        moves.setdefault(name.partition(", ")[0], []).append((name.partition(", ")[2], run))
    height = top + len(moves) * (panel + 50)
    colors = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">'
           % (width, height), '<rect width="100%" height="100%" fill="white"/>']
    y0 = top
    for move, series in moves.items():
        run0 = series[0][1]
        end = max(p[0] for _, r in series for p in r["points"]) + 1
        lo = 0.6
        plot_w = width - left - 220
        x = lambda t: left + t / end * plot_w
        y = lambda r: y0 + (1 - (max(r, lo) - lo) / (1 - lo)) * panel
        out.append('<text x="%d" y="%d" font-weight="bold">%s: hit ratio per second</text>' % (left, y0 - 8, move))
        b, m = run0["before"] / 1000.0, run0["moving"] / 1000.0
        out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#eeeeee"/>' % (x(b), y0, x(b + m) - x(b), panel))
        out.append('<text x="%.1f" y="%d" fill="#666">the move</text>' % (x(b) + 4, y0 + 14))
        for r in [0.6, 0.7, 0.8, 0.9, 1.0]:
            out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ccc"/>' % (left, left + plot_w, y(r), y(r)))
            out.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (left - 6, y(r) + 4, r))
        out.append('<text x="%d" y="%d">seconds</text>' % (left + plot_w - 50, y0 + panel + 28))
        for t in range(0, int(end) + 1, max(1, int(end) // 10)):
            out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(t), y0 + panel + 14, t))
        for i, (mode, run) in enumerate(series):
            pts = " ".join("%.1f,%.1f" % (x(p[0] + 0.5), y(p[2] / p[1])) for p in run["points"] if p[1])
            color = colors[i % len(colors)]
            out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (color, pts))
            out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                       % (left + plot_w + 15, left + plot_w + 35, y0 + 20 + 18 * i, y0 + 20 + 18 * i, color))
            out.append('<text x="%d" y="%d">%s</text>' % (left + plot_w + 40, y0 + 24 + 18 * i, mode))
        y0 += panel + 50
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
