#!/usr/bin/env python3
"""noise.py - where the run-to-run noise of the nightly headline cells comes from, and which per-run
figure tracks them best. Reads schema-2+ results files (h5py, numpy); measures nothing live.

Usage:
  noise.py decompose RUN.h5...        per headline cell over a series of runs of one build: the
                                      within-trial, between-trial and between-run spread, the round
                                      effects, the correlation of each trial with the same round's
                                      references (memcpy of that size, the floor, the harness's
                                      clock pair), and how the cell's samples sit on the clock
  noise.py series RUN.h5...           per headline cell, the run-to-run noise (1.4826 MAD of the log
                                      figure, the machine shift removed) of each candidate per-run
                                      figure, and the change a night could catch with it; then the
                                      pooled headline figures (track's native-best: the best trial of
                                      every mode but the fallback's device control block), their MAD,
                                      standard deviation and worst night, as measured and with the
                                      machine shift removed
  noise.py aa A.h5 B.h5               an A/A pair: median |change| of latency and throughput cells
                                      after the machine shift, for each candidate per-run figure; then
                                      the pair as README.md's opening table has it (the floor, native
                                      and fallback control-block operations, 8 B and 4 MiB round trips,
                                      4 MiB throughput, fallback over native, the best 8 B round trip
                                      against the floor, the 8 B full window)

The candidate figures (results/RESULTS.md "Nightly tracking" says which `track` uses and why):
  p50    the cell's p50 as the file has it (the median of all its samples)
  best   the best trial: the lowest trial median of a time, the highest of a rate (cells columns
         trial_p50_min / trial_p50_max)
  geo    the geometric mean of the trial medians
  clock  the median over rounds of (trial median - the same round's harness_overhead median), plus
         the series' median harness_overhead: the op's time beyond the clock pair that times it
  memcpy the trial medians divided by the same round's pinned memcpy of that size (relative to the
         run's own mean of it), then their median
  track  what `ringbench track` judges: best for throughput, cb_read and cb_write, p50 for the rest
The machine shift of a run is the median over every machine reference cell (memcpy, launch, graph,
call costs, floor) of its log change against the series' median (or against run A), as `track` does.
Exit 0; 2 on a usage or file error.
"""
import math
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:  # pragma: no cover
    print(f"noise.py: needs h5py and numpy: {e}", file=sys.stderr)
    sys.exit(2)

OVERHEAD = "harness_overhead/-/-/-/-/0/0"
FLOOR = "base_floor/-/-/-/-/4/1"
RING = ("latency", "throughput", "cb_", "lc_", "harness_overhead")
# host_ref has a shift of its own in track (plots/track.c host_shift); the leg's processes' memcpy are
# theirs alone (plots/track.c is_leg_ref)
NOT_REFS = RING + ("host_ref", "memcpy_h2d_pinned_procs", "memcpy_h2d_pageable_procs")
FIGURES = ("p50", "best", "geo", "clock", "memcpy", "track")
BEST_FAMILIES = ("throughput", "cb_read", "cb_write")  # harness/track_detect.c track_best_trial_family
Z_NEED = 3.3  # the |z| a headline cell needs with 11 baseline runs (4.5 % over 6 cells, Bonferroni on t(10))


def text(x):
    return x.decode() if isinstance(x, (bytes, np.bytes_)) else str(x)


def cell_key(r):
    mode = "/".join(text(r[k]) for k in ("host_mem", "xfer", "launch", "ctrl"))
    return f"{text(r['family'])}/{mode}/{int(r['size_bytes'])}/{int(r['window'])}"


class Run:
    def __init__(self, path):
        try:
            f = h5py.File(path, "r")
        except OSError as e:
            print(f"noise.py: {path}: {e}", file=sys.stderr)
            sys.exit(2)
        if "trials" not in f:
            print(f"noise.py: {path}: no /trials (schema 1)", file=sys.stderr)
            sys.exit(2)
        self.path = path
        # --cb-batch k: a cb read/write sample is the time of k operations / k, sharing one clock pair
        self.cb_batch = float(f["provenance"].attrs.get("cb_batch", 1)) if "provenance" in f else 1.0
        self.cells = {cell_key(r): r for r in f["cells"][...]}
        self.samples = f["trial_samples"][...]
        self.trials = {}
        for t in f["trials"][...]:
            if text(t["status"]) == "ok" and t["p50"] > 0:
                self.trials.setdefault(cell_key(t), {})[int(t["trial"])] = t

    def ok(self, key):
        c = self.cells.get(key)
        return c is not None and text(c["status"]) == "ok" and c["p50"] > 0

    def rate(self, key):
        return text(self.cells[key]["unit"]) == "GB/s"

    def trial_samples(self, t):
        return self.samples[t["sample_offset"] : t["sample_offset"] + t["n"]]


def mad(v):
    v = np.asarray(v, dtype=float)
    v = v[np.isfinite(v)]
    return 1.4826 * np.median(np.abs(v - np.median(v))) if len(v) else float("nan")


def memcpy_keys(key):
    size = int(key.split("/")[5])
    return [f"memcpy_h2d_pinned/-/-/-/-/{size}/0", f"memcpy_d2h_pinned/-/-/-/-/{size}/0"]


def round_ref(run, keys):
    """Per round: the mean log trial median of the reference cells keys."""
    out = {}
    for k in keys:
        for rnd, t in run.trials.get(k, {}).items():
            out.setdefault(rnd, []).append(math.log(t["p50"]))
    return {rnd: float(np.mean(v)) for rnd, v in out.items()}


def figure(run, key, how, clock=0.0):
    """The run's per-run figure of cell key by rule how (see the file-top comment); NaN when none."""
    if not run.ok(key):
        return float("nan")
    c, tr = run.cells[key], run.trials.get(key, {})
    x = np.array([tr[r]["p50"] for r in sorted(tr)])
    if how == "track":
        how = "best" if key.split("/")[0] in BEST_FAMILIES else "p50"
    if how == "p50" or len(x) == 0:
        return float(c["p50"])
    if how == "best":
        v = c["trial_p50_max"] if run.rate(key) else c["trial_p50_min"]
        return float(v) if v > 0 else float(c["p50"])
    if how == "geo":
        return float(np.exp(np.mean(np.log(x))))
    if how == "clock":
        ov = run.trials.get(OVERHEAD, {})
        k = run.cb_batch if key.startswith(("cb_read", "cb_write")) else 1.0
        v = [tr[r]["p50"] - ov[r]["p50"] / k for r in sorted(tr) if r in ov]
        return float(np.median(v) + clock) if v and not run.rate(key) else float(c["p50"])
    if how == "memcpy":
        ref = round_ref(run, memcpy_keys(key)) if int(key.split("/")[5]) > 0 else {}
        rounds = [r for r in sorted(tr) if r in ref]
        if len(rounds) < 2:
            return float(c["p50"])
        rv = np.array([ref[r] for r in rounds])
        rv -= rv.mean()
        lx = np.log([tr[r]["p50"] for r in rounds]) + (rv if run.rate(key) else -rv)
        return float(np.exp(np.median(lx)))
    raise ValueError(how)


def machine_shift(runs, against=None):
    """Per run: the median over machine reference cells of the log change (time-like) against the
    series' median of that cell, or against run `against`."""
    keys = [k for k in runs[0].cells if not k.startswith(NOT_REFS)]
    m = []
    for k in keys:
        v = [math.log(r.cells[k]["p50"]) if r.ok(k) else float("nan") for r in runs]
        v = np.array(v) * (-1 if runs[0].ok(k) and runs[0].rate(k) else 1)
        base = v[against] if against is not None else np.nanmedian(v)
        m.append(v - base)
    return np.nanmedian(np.array(m), axis=0)


def headline_cells(runs):
    """The headline cells as `track` picks them (plots/track.c mark_headline), by the series' medians."""
    r0 = runs[0]
    ring = [k for k in r0.cells if r0.ok(k) and k.split("/")[0] in ("latency", "throughput")]
    sizes = [int(k.split("/")[5]) for k in ring]
    smin, smax = min(sizes), max(sizes)
    wmax = max(int(k.split("/")[6]) for k in ring if k.startswith("throughput") and int(k.split("/")[5]) == smin)

    def med(k):
        return np.nanmedian([r.cells[k]["p50"] if r.ok(k) else float("nan") for r in runs])

    lat = [k for k in ring if k.startswith("latency/") and int(k.split("/")[5]) == smin]
    big = [k for k in ring if k.startswith("throughput/") and int(k.split("/")[5]) == smax]
    win = [k for k in ring if k.startswith("throughput/") and int(k.split("/")[5]) == smin and int(k.split("/")[6]) == wmax]
    cb = [f"{f}/pinned/async/coop/mapped/0/0" for f in ("cb_read", "cb_write", "cb_handshake")]
    return [min(lat, key=med)] + [k for k in cb if r0.ok(k)] + [max(big, key=med), max(win, key=med)]


def pct(v):
    return f"{100 * v:.1f}%" if np.isfinite(v) else "-"


def trial_corr(runs, key, ref_keys):
    """Correlation over all trials of (log trial median - its run's mean) with the same round's
    reference (same deviation), pooled over runs."""
    a, b = [], []
    for r in runs:
        tr, ref = r.trials.get(key, {}), round_ref(r, ref_keys)
        rounds = [k for k in sorted(tr) if k in ref]
        if len(rounds) < 2:
            continue
        x = np.log([tr[k]["p50"] for k in rounds])
        y = np.array([ref[k] for k in rounds])
        a += list(x - x.mean())
        b += list(y - y.mean())
    return float(np.corrcoef(a, b)[0, 1]) if len(a) > 2 and np.std(b) > 0 else float("nan")


def decompose_row(runs, key):
    within, between, rounds, nsamp = [], [], {}, []
    for r in runs:
        tr = r.trials.get(key, {})
        x = np.log([tr[k]["p50"] for k in sorted(tr)])
        between.append(np.var(x, ddof=1))
        for k in sorted(tr):
            rounds.setdefault(k, []).append(math.log(tr[k]["p50"]) - x.mean())
            s = np.log(r.trial_samples(tr[k]))
            nsamp.append(len(s))
            if len(s) > 1:
                within.append(1.2533 * mad(s) / math.sqrt(len(s)))
    cellp = np.log([r.cells[key]["p50"] for r in runs])
    bt = math.sqrt(np.mean(between))
    size = int(key.split("/")[5])
    mem = trial_corr(runs, key, memcpy_keys(key)) if size > 0 else float("nan")
    return (f"| {key} | {len(rounds)} x {np.mean(nsamp):.0f} | {pct(np.median(within))} | {pct(bt)} | "
            f"{pct(bt / math.sqrt(len(rounds)))} | {pct(np.std(cellp, ddof=1))} ({pct(mad(cellp))}) | "
            + ", ".join(f"{100 * np.mean(rounds[k]):+.1f}%" for k in sorted(rounds))
            + f" | {mem:.2f} | {trial_corr(runs, key, [FLOOR]):.2f} | {trial_corr(runs, key, [OVERHEAD]):.2f} |")


def clock_table(runs, keys):
    """How much of a single-op sample is the clock pair: harness_overhead (two clock reads around
    nothing) against the cell, per round, over the series; with --cb-batch k the pair is shared by k
    operations, so its share of a sample is pair / (k x p50)."""
    print("\n| cell | p50 (median over runs) x cb_batch | same-round clock pair (harness_overhead p50), range over trials |"
          " sample resolution | share of the cell that is the clock pair |")
    print("| --- | --- | --- | --- | --- |")
    ov = [t["p50"] for r in runs for t in r.trials.get(OVERHEAD, {}).values()]
    batch = np.median([r.cb_batch for r in runs])
    for k in keys:
        p = np.median([r.cells[k]["p50"] for r in runs]) * batch
        print(f"| {k} | {1000 * p:.1f} ns | {1000 * np.median(ov):.1f} ns ({1000 * min(ov):.0f}-{1000 * max(ov):.0f} ns)"
              f" | {1 / batch:.2g} ns | {100 * np.median(ov) / p:.0f}% |")


def decompose(runs):
    keys = headline_cells(runs)
    print(f"Decomposition over {len(runs)} runs (log spreads, ~ relative):\n")
    print("| cell | trials x samples | within-trial se of a trial median | between-trial sd | run sd expected "
          "from trials | run-to-run sd (MAD) of cell p50 | round effects | r with same-round memcpy | "
          "r with same-round floor | r with same-round clock pair |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for k in keys:
        print(decompose_row(runs, k))
    clock_table(runs, [k for k in keys if k.startswith(("cb_read", "cb_write"))])


def series(runs):
    shift = machine_shift(runs)
    clock = float(np.median([r.cells[OVERHEAD]["p50"] for r in runs if r.ok(OVERHEAD)]))
    w = len(runs) - 1
    print(f"Run-to-run noise (1.4826 MAD of log figure, machine shift removed) over {len(runs)} runs; in brackets "
          f"the change a night could catch with |z| {Z_NEED} and {w} baseline runs (MAD as the noise, no floor):\n")
    print("| cell | " + " | ".join(FIGURES) + " |")
    print("| --- |" + " --- |" * len(FIGURES))
    for k in headline_cells(runs):
        row = []
        for how in FIGURES:
            v = np.log([figure(r, k, how, clock) for r in runs])
            v = v + shift if runs[0].rate(k) else v - shift
            s = mad(v)
            row.append(f"{pct(s)} ({100 * math.expm1(Z_NEED * s * math.sqrt(1 + math.pi / 2 / w)):.0f}%)")
        print(f"| {k} | " + " | ".join(row) + " |")
    hc = headline_cells(runs)
    pooled_series(runs, shift, hc[:1] + hc[-2:])


def pooled(run, family, size, window):
    """track's native-best figure (plots/track.c load_pooled): the best trial of every ok cell of family,
    size and window whose control block is not the fallback's device copy; NaN when none."""
    v = [run.cells[k]["trial_p50_max" if run.rate(k) else "trial_p50_min"] for k in run.cells
         if run.ok(k) and k.split("/")[0] == family and k.split("/")[4] != "device"
         and int(k.split("/")[5]) == size and int(k.split("/")[6]) == window]
    v = [x for x in v if x > 0]
    if not v:
        return float("nan")
    return max(v) if family == "throughput" else min(v)


def pooled_series(runs, shift, picks):
    """picks: the headline cells whose pools to show besides the control-block ones: the smallest size's
    round trip, the largest size's throughput, the smallest size's full window."""
    w = len(runs) - 1
    print(f"\nPooled headline figures (track's native-best), as measured and with the machine shift removed: "
          f"1.4826 MAD, standard deviation and the worst night of the log figure; in brackets the change a night "
          f"could catch with |z| {Z_NEED}, {w} baseline runs and the MAD as the noise; * the way track judges "
          f"it:\n")
    print("| figure | as measured: MAD | sd | worst night | shift removed: MAD | sd | worst night |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    cells = [(k.split("/")[0], int(k.split("/")[5]), int(k.split("/")[6])) for k in picks]
    largest = max((sz for f, sz, _ in cells if f == "throughput"), default=None)
    for f, sz, win in [("cb_read", 0, 0), ("cb_write", 0, 0), ("cb_handshake", 0, 0)] + cells:
        raw = np.log([pooled(r, f, sz, win) for r in runs])
        # track judges the round trip, handshake and largest size's throughput as measured, the others
        # beyond the machine shift (plots/track.c add_pooled_headlines)
        as_measured = f in ("latency", "cb_handshake") or (f == "throughput" and sz == largest)
        cols = []
        for k, v in enumerate((raw, raw + shift if f == "throughput" else raw - shift)):
            s, d = mad(v), v - np.nanmedian(v)
            worst = d[np.nanargmax(np.abs(d))]
            catch = 100 * math.expm1(Z_NEED * s * math.sqrt(1 + math.pi / 2 / w))
            star = "*" if (k == 0) == as_measured else ""
            cols.append(f"{star}{pct(s)} ({catch:.0f}%) | {pct(float(np.nanstd(d, ddof=1)))} | "
                        f"{100 * math.expm1(worst):+.1f}%")
        print(f"| {f}/native-best/{sz}/{win} | " + " | ".join(cols) + " |")


def aa(a, b):
    runs = [a, b]
    shift = machine_shift(runs, against=0)[1]
    clock = 0.5 * (a.cells[OVERHEAD]["p50"] + b.cells[OVERHEAD]["p50"])
    print(f"A/A {a.path} -> {b.path}: machine shift {100 * shift:+.1f}%\n")
    print("| figure | latency cells: median abs change after the shift | throughput cells | control-block and "
          "lifecycle cells |")
    print("| --- | --- | --- | --- |")
    keys = [k for k in a.cells if a.ok(k) and b.ok(k)]
    for how in FIGURES:
        out = []
        for fam in ("latency/", "throughput/", ("cb_", "lc_")):
            d = []
            for k in (k for k in keys if k.startswith(fam)):
                x = math.log(figure(b, k, how, clock) / figure(a, k, how, clock))
                d.append(abs(math.expm1(x + shift if a.rate(k) else x - shift)))
            out.append(f"{100 * np.median(d):.2f}% ({len(d)})")
        print(f"| {how} | {out[0]} | {out[1]} | {out[2]} |")


NATIVE, FALLBACK = "pinned/async/coop/mapped", "malloc/sync/noncoop/device"


def readme_table(a, b):
    """README.md's opening table of an A/A pair: run a, run b, run a's between-trial spread (trial_cv)."""
    def p50(r, k):
        return float(r.cells[k]["p50"]) if r.ok(k) else float("nan")

    def cv(r, k):
        return f"{100 * float(r.cells[k]['trial_cv']):.1f}%" if r.ok(k) else "-"

    def best(r, keep, rate):
        """The ok cell of r with the highest rate (lowest time) among those keep(family, mode, size, window) takes."""
        ks = [k for k in r.cells if r.ok(k) and keep(k.split("/")[0], "/".join(k.split("/")[1:5]),
                                                      int(k.split("/")[5]), int(k.split("/")[6]))]
        return (max if rate else min)(ks, key=lambda k: p50(r, k)) if ks else None

    print("\n| what (p50, median of the trials) | run a | run b | between-trial spread (run a) | fallback's cost, x (a, b) |")
    print("| --- | --- | --- | --- | --- |")
    rows = [("floor: one-word ping-pong through mapped pinned memory", FLOOR, None, "us")]
    for fam in ("cb_read", "cb_write", "cb_handshake"):
        rows.append((f"{fam}, native / fallback", f"{fam}/{NATIVE}/0/0", f"{fam}/{FALLBACK}/0/0", "us"))
    for size, name in ((8, "8 B"), (4194304, "4 MiB")):
        rows.append((f"ring round trip, {name}, native `{NATIVE}` / fallback", f"latency/{NATIVE}/{size}/1",
                     f"latency/{FALLBACK}/{size}/1", "us"))
    size = max((int(k.split("/")[5]) for k in a.cells if k.startswith("throughput/")), default=0)
    nat = best(a, lambda f, m, s, w: f == "throughput" and s == size and not m.endswith("/device"), True)
    fb = best(a, lambda f, m, s, w: f == "throughput" and s == size and m == FALLBACK, True)
    if nat and fb:
        rows.append((f"throughput at {size >> 20} MiB, best native in run a (`{'/'.join(nat.split('/')[1:5])}`, "
                     f"window {nat.split('/')[6]}) / fallback (window {fb.split('/')[6]})", nat, fb, "GB/s"))
    for name, kn, kf, unit in rows:
        val = [f"{p50(r, kn):.4g}" + (f" / {p50(r, kf):.4g}" if kf else "") + f" {unit}" for r in (a, b)]
        ratio = "" if not kf else " / ".join(
            f"{x:.3g}x" if x < 100 else f"{x:.0f}x"
            for x in ((p50(r, kn) / p50(r, kf) if unit == "GB/s" else p50(r, kf) / p50(r, kn)) for r in (a, b)))
        spread = cv(a, kn) + (f" / {cv(a, kf)}" if kf else "")
        print(f"| {name} | {val[0]} | {val[1]} | {spread} | {ratio} |")
    print()
    for r, n in ((a, "a"), (b, "b")):
        lat = best(r, lambda f, m, s, w: f == "latency" and s == 8, False)
        wmax = max((int(k.split("/")[6]) for k in r.cells if k.startswith("throughput/") and k.split("/")[5] == "8"),
                   default=0)
        full = best(r, lambda f, m, s, w: f == "throughput" and s == 8 and w == wmax, True)
        if lat and full:
            print(f"run {n}: best 8 B round trip `{lat}` {p50(r, lat):.3f} us = {p50(r, lat) / p50(r, FLOOR):.2f}x the "
                  f"floor ({p50(r, FLOOR):.3f} us); 8 B at the full window (W = {wmax}) `{full}` "
                  f"{r.cells[full]['msgs_per_s'] / 1e6:.1f} M msg/s")


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(argv) < 3 or argv[1] not in ("decompose", "series", "aa") or (argv[1] == "aa" and len(argv) != 4):
        print(__doc__, file=sys.stderr)
        return 2
    runs = [Run(p) for p in argv[2:]]
    {"decompose": decompose, "series": series, "aa": lambda r: (aa(r[0], r[1]), readme_table(r[0], r[1]))}[argv[1]](
        runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
