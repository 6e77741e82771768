#!/usr/bin/env python3
"""fw_read.py RUN.h5...: per run, the 8 B full-window figures of its native (non-device control block)
throughput cells: track's pooled figure (the best trial of the best cell), the median over every trial
of those cells, and the number of trials. Then, per trial count, the run-to-run spread (1.4826 MAD of
the log, as a %, and max/min) of each figure."""
import math, re, sys
import h5py, numpy as np

def text(x):
    return x.decode() if isinstance(x, (bytes, np.bytes_)) else str(x)

rows = []
for p in sys.argv[1:]:
    f = h5py.File(p, "r")
    cells = f["cells"][...]
    wmax = max(int(c["window"]) for c in cells if text(c["family"]) == "throughput" and int(c["size_bytes"]) == 8)
    keys = {}
    for c in cells:
        if (text(c["family"]) == "throughput" and int(c["size_bytes"]) == 8 and int(c["window"]) == wmax
                and text(c["ctrl"]) != "device" and text(c["status"]) == "ok"):
            keys[(text(c["host_mem"]), text(c["xfer"]), text(c["launch"]), text(c["ctrl"]))] = c
    best = max(float(c["trial_p50_max"]) for c in keys.values())
    tr = [float(t["p50"]) for t in f["trials"][...]
          if text(t["family"]) == "throughput" and int(t["size_bytes"]) == 8 and int(t["window"]) == wmax
          and text(t["ctrl"]) != "device" and text(t["status"]) == "ok" and t["p50"] > 0]
    m = re.search(r"t(\d+)\.h5$", p)
    rows.append((int(m.group(1)) if m else 0, p, best, float(np.median(tr)), len(tr), wmax))
    print(f"{p}: trials/cell {rows[-1][0]}, W {wmax}: pooled best {best:.4g}, median of {len(tr)} trials "
          f"{rows[-1][3]:.4g} (unit of the file)")

def spread(v):
    l = np.log(v)
    return 100 * 1.4826 * np.median(np.abs(l - np.median(l))), max(v) / min(v)

print("\n| trials per cell | runs | pooled best: MAD % | max/min | median of all trials: MAD % | max/min |")
print("| --- | --- | --- | --- | --- | --- |")
for T in sorted({r[0] for r in rows}):
    b = [r[2] for r in rows if r[0] == T]
    m = [r[3] for r in rows if r[0] == T]
    sb, sm = spread(b), spread(m)
    print(f"| {T} | {len(b)} | {sb[0]:.1f} | {sb[1]:.2f} | {sm[0]:.1f} | {sm[1]:.2f} |")
# pairs: the two figures of one pair move together?
T = sorted({r[0] for r in rows})
if len(T) == 2:
    a = [r for r in rows if r[0] == T[0]]
    b = [r for r in rows if r[0] == T[1]]
    n = min(len(a), len(b))
    if n > 2:
        ca = np.corrcoef(np.log([x[3] for x in a[:n]]), np.log([x[3] for x in b[:n]]))[0, 1]
        print(f"\ncorrelation of the median figure between the two runs of a pair ({n} pairs): {ca:.2f}")
