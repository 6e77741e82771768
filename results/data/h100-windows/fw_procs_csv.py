#!/usr/bin/env python3
"""fw_procs_csv.py RUN.h5...: every 8 B full-window throughput trial of the native (non-device control
block) pinned zero-copy cells of each file as one CSV row: the process (the file's order on the command
line), its arm (fw_procs.sh names a file ...-aN.h5; 0 otherwise), the cell's mode, the trial's round and
time, its rate and the conditions recorded beside it."""
import re, sys
import h5py, numpy as np


def text(x):
    return x.decode() if isinstance(x, (bytes, np.bytes_)) else str(x)


print("proc,arm,launch,ctrl,trial,seq,t_start_s,elapsed_s,msgs_per_s,status,steal_ms,cpu_steal_ms,others_ms,cpu_start,cpu_end")
for k, p in enumerate(sys.argv[1:], 1):
    try:
        t = h5py.File(p, "r")["trials"][...]
    except Exception as e:  # a process that failed leaves no file or a partial one: say so, go on
        print(f"# {p}: {e}", file=sys.stderr)
        continue
    m = re.search(r"-a(\d+)\.h5$", p)
    arm = int(m.group(1)) if m else 0
    w = max((int(r["window"]) for r in t if text(r["family"]) == "throughput"), default=0)
    for r in t:
        if text(r["family"]) != "throughput" or int(r["size_bytes"]) != 8 or int(r["window"]) != w:
            continue
        if text(r["xfer"]) != "zerocopy" or text(r["ctrl"]) == "device":
            continue
        print(f"{k},{arm},{text(r['launch'])},{text(r['ctrl'])},{int(r['trial'])},{int(r['seq'])},{float(r['t_start_s']):.4f},"
              f"{float(r['elapsed_s']):.4f},{float(r['msgs_per_s']):.6g},{text(r['status'])},{float(r['steal_ms']):.3f},"
              f"{float(r['cpu_steal_ms']):.3f},{float(r['others_ms']):.3f},{int(r['cpu_start'])},{int(r['cpu_end'])}")
