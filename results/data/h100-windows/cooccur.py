# cooccur.py - do slow ring trials and slow baseline trials come in the same stretches of a run? (aa-cf2c52a.md)
import sys, numpy as np, h5py
RATE = {b'throughput'}
for p in sys.argv[1:]:
    t = h5py.File(p, 'r')['trials'][...]
    t = t[(t['status'] == b'ok') & (t['p50'] > 0)]
    key = np.array([f"{r['family']}{r['host_mem']}{r['xfer']}{r['launch']}{r['ctrl']}{r['size_bytes']}{r['window']}" for r in t])
    ratio = np.zeros(len(t))
    for k in np.unique(key):
        m = key == k
        v = t['p50'][m]; med = np.median(v)
        ratio[m] = med / v if t['family'][m][0] in RATE else v / med
    slow = ratio > 1.5
    ring = np.isin(t['family'], [b'latency', b'throughput'])
    base = np.isin(t['family'], [b'memcpy_h2d_pinned', b'memcpy_d2h_pinned', b'memcpy_h2d_pageable', b'memcpy_d2h_pageable', b'base_launch', b'base_graph'])
    t0 = t['t_start_s']; t1 = t0 + t['elapsed_s']
    print(p, f"ring slow {slow[ring].mean()*100:.1f}% of {ring.sum()}, baselines slow {slow[base].mean()*100:.1f}% of {base.sum()}")
    # for each baseline trial: is a slow ring trial within +-W seconds of it?
    rs = np.sort(t0[ring & slow])
    for W in (0.5, 2.0):
        near = np.array([np.any(np.abs(rs - x) <= W) for x in t0[base]])
        b = slow[base]
        print(f"  W={W}s: baselines near a slow ring trial: {near.mean()*100:.0f}%; slow share near {b[near].mean()*100:.1f}% ({b[near].sum()}/{near.sum()}), away {b[~near].mean()*100:.1f}% ({b[~near].sum()}/{(~near).sum()})")
        rb = np.sort(t0[base & slow])
        nearr = np.array([np.any(np.abs(rb - x) <= W) for x in t0[ring]])
        r = slow[ring]
        print(f"        ring trials near a slow baseline: {nearr.mean()*100:.0f}%; slow share near {r[nearr].mean()*100:.1f}%, away {r[~nearr].mean()*100:.1f}%")
    # time profile: slow ring share per 10 s bin
    bins = np.arange(0, t1.max() + 10, 10)
    h_all, _ = np.histogram(t0[ring], bins); h_slow, _ = np.histogram(t0[ring & slow], bins)
    hb, _ = np.histogram(t0[base], bins); hbs, _ = np.histogram(t0[base & slow], bins)
    print("  per 10 s: ring slow % / baseline slow count:", ' '.join(f"{100*s/max(a,1):.0f}/{bs}" for s, a, bs in zip(h_slow, h_all, hbs)))
