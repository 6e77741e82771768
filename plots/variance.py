#!/usr/bin/env python3
"""variance.py - where does a ringbench run's noise come from? Reads schema-2 results files (h5py).

Usage:
  variance.py RUN.h5 [RUN2.h5]          one run: the between-trial spread and what explains it;
                                        two runs of the same machine (an A/A pair): also how far
                                        they disagree, and whether the trial-level intervals cover it
  variance.py --ab BASE.h5 OTHER.h5     two runs that differ in one condition (e.g. --warmup 0, or
                                        --no-pin): the spread of each, side by side

This is the analysis behind results/RESULTS.md "Reproducibility". It decomposes the deviation of every
trial's median from its cell's mean (log ratio) and asks how much of its variance each recorded
condition explains (R^2 of a one-factor fit over all latency-like trials):
  clock      the SM clock at the trial's start below 90% of the run's highest (the idle clock ramp)
  migrated   the polling thread ran on another CPU at the trial's end than at its start
  switches   how often the polling thread was switched out involuntarily during the trial
  drift      the trial's position in the run (seq), linear
  round      the round (0 = the first time a mode runs at a size: driver state, first-touch costs)
  process    (two runs) which run the trial belongs to: what remains between processes
Exit 0; 2 on a usage or file error.
"""
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:  # pragma: no cover
    print(f"variance.py: needs h5py and numpy: {e}", file=sys.stderr)
    sys.exit(2)

LAT_FAMILIES = {b"latency", b"cb_read", b"cb_write", b"cb_handshake", b"base_floor", b"base_launch",
                b"base_graph"}
TPUT = b"throughput"


def load(path):
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        print(f"variance.py: {path}: {e}", file=sys.stderr)
        sys.exit(2)
    if int(f.attrs.get("schema_version", 0)) < 2 or "trials" not in f:
        print(f"variance.py: {path}: not a schema-2 ringbench file (no /trials)", file=sys.stderr)
        sys.exit(2)
    cells = f["/cells"][...]
    trials = f["/trials"][...]
    return f, cells, trials


def key(r):
    return (r["family"], r["host_mem"], r["xfer"], r["launch"], r["ctrl"], int(r["size_bytes"]), int(r["window"]))


def ok_trials(trials):
    t = trials[(trials["status"] == b"ok") & np.isfinite(trials["p50"]) & (trials["p50"] > 0)]
    return t


def deviations(trials):
    """Per trial: log(trial p50 / mean of its cell's trial p50s), for cells with >= 2 trials."""
    t = ok_trials(trials)
    out = []
    by_cell = {}
    for i, r in enumerate(t):
        by_cell.setdefault((int(r["cell_id"]), r["family"]), []).append(i)
    for idx in by_cell.values():
        if len(idx) < 2:
            continue
        p = t["p50"][idx]
        m = p.mean()
        for i, v in zip(idx, p):
            out.append((i, np.log(v / m)))
    if not out:
        return t[:0], np.array([])
    ii, d = zip(*out)
    return t[list(ii)], np.array(d)


def r2(y, x):
    """R^2 of the least-squares fit y ~ a + b x (x numeric or 0/1)."""
    x = np.asarray(x, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(y) < 3 or np.var(x) == 0 or np.var(y) == 0:
        return float("nan")
    c = np.corrcoef(x, y)[0, 1]
    return float(c * c)


def pct(v):
    return "n/a" if not np.isfinite(v) else f"{100 * v:.1f}%"


def spread_table(name, cells):
    print(f"\n### Between-trial spread in {name}\n")
    print("| family | cells | median trial CV | p95 trial CV |")
    print("| --- | --- | --- | --- |")
    fams = sorted({r["family"] for r in cells if r["status"] == b"ok" and r["trials"] >= 2})
    for fam in fams:
        cv = np.array([r["trial_cv"] for r in cells if r["family"] == fam and r["status"] == b"ok"
                       and np.isfinite(r["trial_cv"])])
        if len(cv):
            print(f"| {fam.decode()} | {len(cv)} | {pct(np.median(cv))} | {pct(np.percentile(cv, 95))} |")


def factors(name, trials):
    t, d = deviations(trials)
    lat = np.array([f in LAT_FAMILIES for f in t["family"]], dtype=bool)
    t, d = t[lat], d[lat]
    print(f"\n### What explains the between-trial variance of latency-like trials in {name}\n")
    if len(d) < 3:
        print("(too few trials)")
        return
    sm = t["sm_mhz_start"]
    top = np.nanmax(sm) if np.isfinite(sm).any() else float("nan")
    clock = (sm < 0.9 * top).astype(float) if np.isfinite(top) else np.full(len(t), np.nan)
    migrated = (t["cpu_start"] != t["cpu_end"]).astype(float)
    switches = np.log1p(np.maximum(t["ctx_switches"], 0).astype(float))
    print(f"{len(d)} trials; sd of log(trial p50 / cell mean) = {np.std(d):.4f} "
          f"(about {100 * np.std(d):.1f}% per trial)\n")
    print("| factor | trials affected | R^2 (share of variance explained) |")
    print("| --- | --- | --- |")
    print(f"| clock below 90% of the run's top ({top:.0f} MHz) at the start | {int(np.nansum(clock))} | {pct(r2(d, clock))} |")
    print(f"| polling thread on another CPU at the end than at the start | {int(migrated.sum())} | {pct(r2(d, migrated))} |")
    print(f"| involuntary context switches of the polling thread (log) | {int((t['ctx_switches'] > 0).sum())} | "
          f"{pct(r2(d, switches))} |")
    print(f"| drift (position in the run) | {len(d)} | {pct(r2(d, t['seq']))} |")
    print(f"| first round (0) against later rounds | {int((t['trial'] == 0).sum())} | {pct(r2(d, t['trial'] == 0))} |")


def aa(a_path, b_path):
    _, ca, ta = load(a_path)
    _, cb, tb = load(b_path)
    bk = {key(r): r for r in cb if r["status"] == b"ok"}
    print(f"\n### A/A: {a_path} against {b_path}\n")
    print("| family | cells | median abs(dp50) | p95 abs(dp50) | intervals overlap | dp50 within the combined interval |")
    print("| --- | --- | --- | --- | --- | --- |")
    fams = {}
    for r in ca:
        if r["status"] != b"ok" or key(r) not in bk:
            continue
        o = bk[key(r)]
        if not (r["p50"] > 0 and o["p50"] > 0):
            continue
        d = o["p50"] / r["p50"] - 1
        overlap = not (o["ci_lo"] > r["ci_hi"] or r["ci_lo"] > o["ci_hi"])
        # The two runs' difference against what their own intervals say about it.
        half = np.hypot((r["ci_hi"] - r["ci_lo"]) / 2, (o["ci_hi"] - o["ci_lo"]) / 2)
        covered = abs(o["p50"] - r["p50"]) <= half
        fams.setdefault(r["family"], []).append((abs(d), overlap, covered))
    for fam in sorted(fams):
        v = np.array([x[0] for x in fams[fam]])
        ov = sum(x[1] for x in fams[fam])
        cov = sum(x[2] for x in fams[fam])
        print(f"| {fam.decode()} | {len(v)} | {pct(np.median(v))} | {pct(np.percentile(v, 95))} | "
              f"{ov}/{len(v)} | {cov}/{len(v)} |")
    fl = [r for r in ca if r["family"] == b"base_floor" and r["status"] == b"ok"]
    fo = [r for r in cb if r["family"] == b"base_floor" and r["status"] == b"ok"]
    if fl and fo:
        print(f"\nFloor: {fl[0]['p50']:.3f} us against {fo[0]['p50']:.3f} us ({pct(fo[0]['p50'] / fl[0]['p50'] - 1)}).")
    # Between-process: the deviations of both runs' trials from the pooled cell mean, by run.
    both = np.concatenate([ok_trials(ta), ok_trials(tb)])
    run = np.concatenate([np.zeros(len(ok_trials(ta))), np.ones(len(ok_trials(tb)))])
    groups = {}
    for i, r in enumerate(both):
        if r["family"] in LAT_FAMILIES:
            groups.setdefault((r["family"], r["host_mem"], r["xfer"], r["launch"], r["ctrl"], int(r["size_bytes"])),
                              []).append(i)
    dev, which = [], []
    for idx in groups.values():
        if len(idx) < 4:
            continue
        p = both["p50"][idx]
        m = np.log(p).mean()
        dev += list(np.log(p) - m)
        which += list(run[idx])
    if dev:
        print(f"\nShare of the pooled between-trial variance explained by which process a trial ran in: "
              f"{pct(r2(np.array(dev), np.array(which)))} (near 0: the trials of one run already show what another "
              f"run will see).")


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(argv) == 4 and argv[1] == "--ab":
        for p in argv[2:]:
            _, c, t = load(p)
            spread_table(p, c)
            factors(p, t)
        return 0
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    for p in argv[1:]:
        _, c, t = load(p)
        spread_table(p, c)
        factors(p, t)
    if len(argv) == 3:
        aa(argv[1], argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
