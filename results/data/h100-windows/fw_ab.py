#!/usr/bin/python3
"""fw_ab.py FW.TXT: rates of arms A (verify pieces by payload) and B (by work) per mode, full window and W=64."""
import re, sys, collections, numpy as np
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    w = line.split()
    i, arm, mode = w[0], w[1], w[2]
    full = line.split('W64')[0]
    c = [x.strip() for x in full.split('|')]
    rate = float(c[2])
    w64 = line.split('W64')[1].split('XP')[0]
    r64 = float([x.strip() for x in w64.split('|')][2])
    sv = float(re.search(r'split verify ([\d.]+)', line).group(1))
    d[(mode, arm)].append((rate, r64, sv))
for mode in sorted({k[0] for k in d}):
    for arm in 'AB':
        a = np.array(d[(mode, arm)])
        print(f'{mode:28s} {arm} full M msg/s median {np.median(a[:,0]):5.1f} [min {a[:,0].min():5.1f}, max {a[:,0].max():5.1f}] CV {100*a[:,0].std()/a[:,0].mean():4.1f}% | W64 median {np.median(a[:,1]):5.2f} [{a[:,1].min():5.2f}, {a[:,1].max():5.2f}] | verify ns/msg median {np.median(a[:,2]):5.1f} [{a[:,2].min():5.1f}, {a[:,2].max():5.1f}]  n={len(a)}')
