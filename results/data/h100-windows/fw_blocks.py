#!/usr/bin/env python3
"""fw_blocks.py BLOCK RUN.h5...: is the 8 B full window's run-to-run spread the process or the time? Per run,
the median of its native full-window trials in consecutive blocks of BLOCK rounds (rounds are spread over the
run in time order), then the spread of those block medians within each run against the spread of the runs'
whole medians."""
import sys
import h5py, numpy as np

def text(x):
    return x.decode() if isinstance(x, (bytes, np.bytes_)) else str(x)

def mad_pct(v):
    l = np.log(np.asarray(v, float))
    return 100 * 1.4826 * np.median(np.abs(l - np.median(l)))

block = int(sys.argv[1])
whole, within, allblocks = [], [], []
for p in sys.argv[2:]:
    f = h5py.File(p, "r")
    tr = [t for t in f["trials"][...] if text(t["family"]) == "throughput" and int(t["size_bytes"]) == 8
          and text(t["ctrl"]) != "device" and text(t["status"]) == "ok" and t["p50"] > 0]
    wmax = max(int(t["window"]) for t in tr)
    tr = [t for t in tr if int(t["window"]) == wmax]
    rounds = sorted({int(t["trial"]) for t in tr})
    meds = []
    for b in range(0, len(rounds), block):
        rs = set(rounds[b:b + block])
        meds.append(float(np.median([float(t["p50"]) for t in tr if int(t["trial"]) in rs])))
    w = float(np.median([float(t["p50"]) for t in tr]))
    whole.append(w)
    allblocks += meds
    within.append(mad_pct(meds))
    print(f"{p}: {len(tr)} trials, {len(rounds)} rounds; median {w:.4g}; medians of blocks of {block} rounds: "
          + " ".join(f"{m:.4g}" for m in meds) + f"  (within-run MAD {within[-1]:.1f} %)")
print(f"\nruns' whole medians: 1.4826 MAD {mad_pct(whole):.1f} %, max/min {max(whole) / min(whole):.2f}")
print(f"block medians within a run: median of the runs' MADs {np.median(within):.1f} %")
print(f"all block medians pooled: MAD {mad_pct(allblocks):.1f} %")
