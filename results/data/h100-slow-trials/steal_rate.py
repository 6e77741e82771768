#!/usr/bin/python3
"""steal_rate.py H5...: per ring trial part (as report.md counts), slow share by the machine's steal rate (ms/s) over the trial."""
import sys, collections, statistics as st
import h5py, numpy as np
for path in sys.argv[1:]:
    t = h5py.File(path, 'r')['trials'][:]
    cells = collections.defaultdict(list)
    for r in t:
        fam = r['family'].decode()
        if fam not in ('latency', 'throughput') or r['status'] != b'ok':
            continue
        cells[(fam, r['xfer'], r['host_mem'], r['launch'], r['ctrl'], int(r['size_bytes']), int(r['window']))].append(r)
    rows = []
    for k, rs in cells.items():
        med = st.median(float(r['p50']) for r in rs)
        rate = k[0] == 'throughput'
        for r in rs:
            s = r['p50'] * 1.5 < med if rate else r['p50'] > med * 1.5
            rows.append((s, r['steal_ms'] / r['elapsed_s'], r['size_bytes']))
    a = np.array(rows, dtype=float)
    out = [f'{path.split("/")[-2]}/{path.split("/")[-1]} parts {len(a)} slow {100*a[:,0].mean():.1f}%']
    for lo, hi in ((-1, 0), (0, 50), (50, 1e9), (0, 1e9)):
        m = (a[:, 1] > lo) & (a[:, 1] <= hi)
        if m.sum():
            out.append(f'({lo:g},{hi:g}] n={int(m.sum())} {100*a[m,0].mean():.1f}%')
    print(' | '.join(out))
