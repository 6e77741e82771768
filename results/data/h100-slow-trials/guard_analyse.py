#!/usr/bin/python3
"""analyse.py DIR: per run, slow ring trial parts (> 1.5x their cell's median trial in the run, as report.md
counts them) per size; the same against the cell's median over every N run (catches a cell whose trials
are all slow); the canary before each slow/other part; the 8 B full window native best trial."""
import sys, os, glob, collections, statistics as st
import h5py, numpy as np
d = sys.argv[1]
def key(r):
    return (r['family'], r['xfer'], r['host_mem'], r['launch'], r['ctrl'], int(r['size_bytes']), int(r['window']))
def load(run):
    t = h5py.File(f'{d}/{run}.h5', 'r')['trials'][:]
    g = {}
    for line in open(f'{d}/{run}.log'):
        f = line.split()
        if f and f[0] == 'guard':
            g[int(f[1])] = (float(f[4]), float(f[5]) if f[5] != 'nan' else float('nan'), int(f[6]), float(f[7]))
    parts = [r for r in t if r['family'] in (b'latency', b'throughput') and r['status'] == b'ok']
    return parts, g
runs = sorted(os.path.basename(p)[:-3] for p in glob.glob(f'{d}/*.h5'))
data = {r: load(r) for r in runs}
# cross-run reference: median over the N runs' trials of each cell
ref = collections.defaultdict(list)
for r in runs:
    if r.startswith('N'):
        for p in data[r][0]:
            ref[key(p)].append(float(p['p50']))
ref = {k: st.median(v) for k, v in ref.items()}
def slow(p, med):
    return p['p50'] * 1.5 < med if p['family'] == b'throughput' else p['p50'] > med * 1.5
sizes = sorted({int(p['size_bytes']) for p in data[runs[0]][0]})
print('run | parts | slow in run % | worst size % | slow vs N-median % | worst size % | canary>1.3 ref: slow % (n) | other slow % | fw8 native best Mmsg/s')
agg = collections.defaultdict(lambda: [0, 0, 0])
for r in runs:
    parts, g = data[r]
    cells = collections.defaultdict(list)
    for p in parts:
        cells[key(p)].append(p)
    s_in = collections.Counter(); s_x = collections.Counter(); n = collections.Counter()
    hot = [0, 0]; cold = [0, 0]
    for k, ps in cells.items():
        med = st.median(float(p['p50']) for p in ps)
        for p in ps:
            sz = int(p['size_bytes']); n[sz] += 1
            a = slow(p, med); b = k in ref and slow(p, ref[k])
            s_in[sz] += a; s_x[sz] += b
            c0, rf, w, c = g.get(int(p['seq']), (np.nan, np.nan, 0, np.nan))
            flagged = c0 > 1.3 * rf
            (hot if flagged else cold)[0] += a; (hot if flagged else cold)[1] += 1
    tot = sum(n.values())
    fw = [float(p['msgs_per_s']) for p in parts if p['family'] == b'throughput' and int(p['size_bytes']) == 8
          and p['host_mem'] == b'pinned' and p['ctrl'] != b'device' and int(p['window']) >= 1024]
    print(f"{r} | {tot} | {100*sum(s_in.values())/tot:.2f} | {max(100*s_in[z]/n[z] for z in n):.1f} | "
          f"{100*sum(s_x.values())/tot:.2f} | {max(100*s_x[z]/n[z] for z in n):.1f} | "
          f"{100*hot[0]/max(hot[1],1):.1f} ({hot[1]}) | {100*cold[0]/max(cold[1],1):.2f} | {max(fw)/1e6 if fw else float('nan'):.1f}")
    arm = r[0]
    for z in n:
        agg[(arm, z)][0] += s_in[z]; agg[(arm, z)][1] += s_x[z]; agg[(arm, z)][2] += n[z]
print('\nper size, arms pooled: size | N slow in run % | G slow in run % | N vs N-median % | G vs N-median %')
for z in sizes:
    a, b = agg[('N', z)], agg[('G', z)]
    print(f"{z} | {100*a[0]/a[2]:.2f} | {100*b[0]/b[2]:.2f} | {100*a[1]/a[2]:.2f} | {100*b[1]/b[2]:.2f}")
