#!/usr/bin/env python3
"""legrefs.py - whether the full window's leg would be steadier divided by each process's own references.

The leg (`ringbench run --window-procs K`) measures the smallest size's full window in K fresh
processes, each a quick run of the four native zero-copy modes, and takes their median: each process
draws its own level of that rate (issue 18). Each process also measures, in the same seconds, the
references of a quick run: the floor (a one-word ping-pong), memcpy at that size, the host's own
speed beside every control trial (host_ref) and the ring's own round trip at window 1. If a process's
level were the machine's speed in those seconds, its references would move with it and dividing
them out would narrow the spread between processes.

Usage:
  legrefs.py NIGHT-procs.csv...
  legrefs.py --per-process NIGHT-procs.csv...   one CSV row per process instead: night, process,
                                                 its full-window figure and each reference's speed

Each file is one night's processes as tests/gpu_session.sh legseries writes them with
RINGBENCH_LEG_KEEP=1 (`ringbench export --format csv` of every process's file, first column `proc`).
Prints, per reference, the correlation across processes (each night's median taken out) between the
log of the process's full-window figure (the median of its four modes' p50) and the log of the
reference's speed, and the spread between processes (1.4826 x MAD of the log, in %) of the figure
as measured and divided by the reference (and by the reference raised to the least-squares slope).
Then, per night, the leg's figure as measured and divided, and with three nights or more their
spread from night to night (with ten or more, what tracking would see). Reads CSV only (no h5py).
Exit 2 on a usage error or a file without processes.
"""
import csv
import math
import statistics
import sys

# Per reference: (the rows it is made of, whether the figure is a time - so its speed is 1 / time).
REFS = {
    "host_ref": (lambda r: r["family"] == "host_ref", True),
    "floor": (lambda r: r["family"] == "base_floor", True),
    "memcpy_h2d_pinned": (lambda r: r["family"] == "memcpy_h2d_pinned", False),
    "memcpy_d2h_pinned": (lambda r: r["family"] == "memcpy_d2h_pinned", False),
    "memcpy_h2d_pageable": (lambda r: r["family"] == "memcpy_h2d_pageable", False),
    "round_trip_w1": (lambda r: r["family"] == "latency" and r["window"] == "1", True),
}


def mad_pct(xs):
    """1.4826 x the median absolute deviation of logs, as a percentage."""
    if len(xs) < 2:
        return float("nan")
    m = statistics.median(xs)
    return 100 * 1.4826 * statistics.median(abs(x - m) for x in xs)


def corr(xs, ys):
    if len(xs) < 3:
        return float("nan")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def slope(xs, ys):
    """Least-squares slope of ys on xs."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0


def positive(v):
    try:
        x = float(v)
    except ValueError:
        return None
    return x if math.isfinite(x) and x > 0 else None


def read_night(path):
    """{proc: {'fw': GB/s, ref: speed, ...}} of one night's file."""
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("status") == "ok":
                rows.setdefault(r["proc"], []).append(r)
    procs = {}
    for p, rs in sorted(rows.items()):
        tput = [r for r in rs if r["family"] == "throughput" and positive(r["p50"])]
        if not tput:
            continue
        top = max(int(r["window"]) for r in tput)  # the leg's processes measure only the full window
        d = {"fw": statistics.median(positive(r["p50"]) for r in tput if int(r["window"]) == top)}
        for name, (pick, is_time) in REFS.items():
            vs = [positive(r["p50"]) for r in rs if pick(r)]
            vs = [v for v in vs if v]
            if vs:
                v = statistics.median(vs)
                d[name] = 1 / v if is_time else v
        procs[p] = d
    return procs


def main(argv):
    if not argv or argv[0] in ("-h", "--help") or argv == ["--per-process"]:
        print(__doc__.strip())
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    per_process = argv[0] == "--per-process"
    if per_process:
        argv = argv[1:]
    nights = []
    for path in argv:
        procs = read_night(path)
        if not procs:
            print(f"legrefs.py: {path}: no process with a full-window figure", file=sys.stderr)
            return 2
        nights.append((path, procs))
    if per_process:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(["night", "proc", "fw_gbps"] + [f"{n}_speed" for n in REFS])
        for path, procs in nights:
            for p, d in procs.items():
                out.writerow([path, p, f"{d['fw']:.6g}"] + [f"{d[n]:.6g}" if n in d else "" for n in REFS])
        return 0
    print(f"{len(nights)} nights, {sum(len(p) for _, p in nights)} processes\n")
    print("| reference | processes | correlation with the figure | slope | spread as measured | divided | "
          "divided ^ slope |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in REFS:
        xs, ys, raw, div = [], [], [], []
        for _, procs in nights:
            have = [d for d in procs.values() if name in d]
            if len(have) < 3:
                continue
            mf = statistics.median(math.log(d["fw"]) for d in have)
            mr = statistics.median(math.log(d[name]) for d in have)
            for d in have:
                ys.append(math.log(d["fw"]) - mf)
                xs.append(math.log(d[name]) - mr)
        if len(xs) < 3:
            continue
        b = slope(xs, ys)
        raw = ys
        div = [y - x for x, y in zip(xs, ys)]
        fit = [y - b * x for x, y in zip(xs, ys)]
        print(f"| {name} | {len(xs)} | {corr(xs, ys):+.2f} | {b:+.2f} | {mad_pct(raw):.1f} % | "
              f"{mad_pct(div):.1f} % | {mad_pct(fit):.1f} % |")
    print("\n| night | processes | leg (median, GB/s) | " + " | ".join(f"/ {n}" for n in REFS) + " |")
    print("| --- | ---: | ---: |" + " ---: |" * len(REFS))
    for path, procs in nights:
        cells = []
        for name in REFS:
            have = [d for d in procs.values() if name in d]
            cells.append(f"{statistics.median(d['fw'] / d[name] for d in have):.4g}" if have else "-")
        leg = statistics.median(d["fw"] for d in procs.values())
        print(f"| {path} | {len(procs)} | {leg:.4g} | " + " | ".join(cells) + " |")
    if len(nights) >= 3:
        spreads = []
        for name in (None,) + tuple(REFS):
            legs = []
            for _, procs in nights:
                have = [d for d in procs.values() if name is None or name in d]
                if have:
                    legs.append(math.log(statistics.median(d["fw"] / (d[name] if name else 1) for d in have)))
            if len(legs) == len(nights):
                spreads.append(f"{'as measured' if name is None else '/ ' + name} {mad_pct(legs):.1f} %")
        print("\nThe leg night to night (1.4826 x MAD of the log): " + ", ".join(spreads))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
