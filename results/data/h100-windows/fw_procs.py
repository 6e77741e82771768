#!/usr/bin/env python3
"""fw_procs.py FWPROCS.csv [FWPROCS.log]: how the 8 B full window moves from process to process (fw_procs.sh).

Per process, the figure `ringbench track` pools for a nightly quick run (the best trial of the four
native zero-copy cells over their first 3 trials) and the same over all 6; the spread of that figure
from process to process (1.4826 MAD of the log, as a %); how often a process sits 10 % or 20 % off the
median; how far a trial sits from its own process's median against how far the processes' medians sit
apart; whether neighbouring processes move together (lag-1 correlation); and the spread of the median
of k processes, over non-overlapping groups of k consecutive processes and resampled (the processes
are nearly independent of their neighbours), with the change a night would catch: what several
processes a night would give. With the log of fw_procs.sh, whether a process's figure follows its own
wall time. When the CSV has two arms (fw_procs.sh WRAP), each arm is reported on its own."""
import csv, math, re, sys
from collections import defaultdict
import numpy as np


def log_mad(l):
    """1.4826 MAD of values already in log space, as a %."""
    return 100 * 1.4826 * np.median(np.abs(l - np.median(l)))


def mad(v):
    return log_mad(np.log(np.asarray(v, float)))


def pooled(rs, k):
    return max(float(r["msgs_per_s"]) for r in rs if int(r["trial"]) < k)


def spread_and_tails(by, procs):
    f3 = np.array([pooled(by[p], 3) for p in procs])
    f6 = np.array([pooled(by[p], 6) for p in procs])
    print(f"{len(procs)} processes; M msg/s of the pooled figure (best of 4 cells x 3 trials):")
    print("  " + " ".join(f"{v / 1e6:.0f}" for v in f3))
    med = np.median(f3)
    dev = f3 / med - 1
    print(f"median {med / 1e6:.1f} M msg/s, MAD {mad(f3):.1f} %, max/min {f3.max() / f3.min():.2f}; "
          f"with 6 trials: MAD {mad(f6):.1f} %")
    for t in (0.1, 0.2):
        print(f"  processes off the median by >= {t:.0%}: {np.sum(abs(dev) >= t)} of {len(f3)} "
              f"(slower {np.sum(dev <= -t)}, faster {np.sum(dev >= t)})")
    l = np.log(f3)
    print(f"lag-1 correlation of the log figure: {np.corrcoef(l[:-1], l[1:])[0, 1]:.2f}; "
          f"lag 2: {np.corrcoef(l[:-2], l[2:])[0, 1]:.2f}; lag 5: {np.corrcoef(l[:-5], l[5:])[0, 1]:.2f}")
    return f3


def within_between(by, procs):
    # Robustly (a trial's rate has a long slow tail): each trial around its process's median, and the
    # medians of the processes around theirs.
    pmed = np.array([np.median([float(r["msgs_per_s"]) for r in by[p]]) for p in procs])
    within = np.concatenate([np.log([float(r["msgs_per_s"]) for r in by[p]]) - math.log(m) for p, m in zip(procs, pmed)])
    print(f"a trial around its process's median: {100 * 1.4826 * np.median(np.abs(within)):.1f} % (MAD); the median "
          f"of a process's {sum(len(by[p]) for p in procs) // len(procs)} trials from process to process: {mad(pmed):.1f} %")
    return pmed


def nights(f3):
    print("\n| processes a night (k) | groups | spread of their median, consecutive | spread, spread over the series |")
    print("| ---: | ---: | ---: | ---: |")
    for k in (1, 2, 3, 5, 7):
        n = len(f3) // k
        if n < 3:
            break
        cons = [np.median(f3[i * k:(i + 1) * k]) for i in range(n)]
        spr = [np.median(f3[i::n][:k]) for i in range(n)]
        print(f"| {k} | {n} | {mad(cons):.1f} % | {mad(spr):.1f} % |")
    # The night's figure as the median of k processes drawn from the series; its spread as the noise of a
    # night judged against 11 earlier ones at |z| 3.4 (track's threshold for 7 headline figures).
    rng = np.random.default_rng(1)
    print("\n| processes a night (k), resampled | spread of their median | catches at |z| 3.4 |")
    print("| ---: | ---: | ---: |")
    for k in (1, 3, 5, 10, 20, 30, 40):
        m = np.median(f3[rng.integers(0, len(f3), (4000, k))], axis=1)
        s = mad(m) / 100
        print(f"| {k} | {100 * s:.1f} % | {100 * math.expm1(3.4 * s * math.sqrt(1 + math.pi / 2 / 11)):.0f} % |")


def against_wall(procs, pmed, wall):
    have = [i for i, p in enumerate(procs) if p in wall]
    if len(have) < 3:
        return
    fig = np.log(pmed[have])
    lw = np.log([wall[procs[i]] for i in have])
    A = np.vstack([lw, np.ones_like(lw)]).T
    coef = np.linalg.lstsq(A, fig, rcond=None)[0]
    res = fig - A @ coef
    print(f"\nthe median of a process's trials against its wall time ({len(have)} processes, "
          f"{min(np.exp(lw)) / 1000:.1f}-{max(np.exp(lw)) / 1000:.1f} s): correlation {np.corrcoef(fig, lw)[0, 1]:.2f}, "
          f"slope {coef[0]:.2f}; spread {log_mad(fig):.1f} % as measured, {log_mad(res):.1f} % with the wall time regressed out")


def main():
    rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
    wall = {}
    if len(sys.argv) > 2:
        wall = {int(a): int(b) for a, b in re.findall(r"process (\d+) exit 0 (\d+) ms", open(sys.argv[2]).read())}
    arms = sorted({int(r.get("arm") or 0) for r in rows})
    for arm in arms:
        if len(arms) > 1:
            print(f"\n## arm {arm}\n")
        by = defaultdict(list)
        for r in rows:
            if int(r.get("arm") or 0) == arm:
                by[int(r["proc"])].append(r)
        procs = sorted(by)
        f3 = spread_and_tails(by, procs)
        pmed = within_between(by, procs)
        nights(f3)
        against_wall(procs, pmed, wall)


if __name__ == "__main__":  # fw_arms.py imports mad and pooled
    main()
