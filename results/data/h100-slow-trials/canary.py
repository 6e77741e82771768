#!/usr/bin/python3
"""canary.py LOG H5: lines 'canary MODE SIZE PHASE cpu X priv X in X out X ...' (stderr of a run with the
canary experiment) against that run's ring trials: is a slow ring instance's host slow at register work,
at a private buffer, or at the ring's own buffers, and before or after its kernel launched?"""
import sys, collections, statistics as st
import h5py, numpy as np

def load_canary(path):
    inst = []
    for line in open(path, errors='replace'):
        if not line.startswith('canary '):
            continue
        w = line.split()
        mode, size, phase = w[1], int(w[2]), w[3]
        vals = {w[i]: float(w[i + 1]) for i in range(4, len(w) - 1, 2)}
        if phase == 'open':
            inst.append({'mode': mode, 'size': size})
        inst[-1][phase] = vals
    return inst

def load_trials(path):
    t = h5py.File(path, 'r')['trials'][:]
    by = collections.defaultdict(list)
    for r in t:
        fam = r['family'].decode()
        if fam not in ('latency', 'throughput') or r['status'].decode() != 'ok':
            continue
        by[int(r['seq'])].append(r)
    return [by[k] for k in sorted(by)]

def main():
    inst = load_canary(sys.argv[1])
    trials = load_trials(sys.argv[2])
    # pair each trial with the next canary of its mode and size (a ring that failed to launch has a
    # canary and no trial)
    paired, j = [], 0
    for parts in trials:
        r = parts[0]
        mode = '/'.join(r[a].decode() for a in ('host_mem', 'xfer', 'launch', 'ctrl'))
        while j < len(inst) and (inst[j]['mode'], inst[j]['size']) != (mode, int(r['size_bytes'])):
            j += 1
        if j == len(inst):
            break
        paired.append(inst[j])
        j += 1
    print('trials', len(trials), 'canaries', len(inst), 'paired', len(paired))
    inst = paired
    n = len(paired)
    cellvals = collections.defaultdict(list)
    for k in range(n):
        for r in trials[k]:
            mode = '/'.join(r[a].decode() for a in ('host_mem', 'xfer', 'launch', 'ctrl'))
            assert mode == inst[k]['mode'] and int(r['size_bytes']) == inst[k]['size'], (k, mode, inst[k])
            key = (mode, int(r['size_bytes']), r['family'].decode(), int(r['window']))
            v = float(r['p50']) if r['family'] == b'latency' else 1.0 / float(r['msgs_per_s'])
            cellvals[key].append((k, v))
    slow = [1.0] * n
    for key, kv in cellvals.items():
        med = st.median(v for _, v in kv)
        for k, v in kv:
            slow[k] = max(slow[k], v / med)
    # canary ratios against the median of the same mode and size (and phase, measure)
    groups = collections.defaultdict(list)
    for k in range(n):
        groups[(inst[k]['mode'], inst[k]['size'])].append(k)
    meas = ('cpu', 'priv', 'in', 'out')
    phases = ('open', 'live', 'end')
    ratio = [dict() for _ in range(n)]
    for g, ks in groups.items():
        for ph in phases:
            for m in meas:
                xs = [inst[k][ph][m] for k in ks if ph in inst[k]]
                if not xs:
                    continue
                med = st.median(xs)
                for k in ks:
                    if ph in inst[k]:
                        ratio[k][(ph, m)] = inst[k][ph][m] / med
    S = [k for k in range(n) if slow[k] > 1.5]
    N = [k for k in range(n) if slow[k] <= 1.5]
    print(f'instances {n}, slow (>1.5x in any part) {len(S)} ({100*len(S)/max(n,1):.1f}%)')
    print('| phase | measure | slow: median [p10, p90] | others: median [p10, p90] | slow with >1.3x | others with >1.3x |')
    print('| --- | --- | --- | --- | --- | --- |')
    for ph in phases:
        for m in meas:
            def d(ks):
                xs = [ratio[k][(ph, m)] for k in ks if (ph, m) in ratio[k]]
                if not xs:
                    return 'n/a', 'n/a'
                q = np.percentile(xs, [50, 10, 90])
                return f'{q[0]:.2f} [{q[1]:.2f}, {q[2]:.2f}]', f'{100*np.mean(np.array(xs) > 1.3):.0f}%'
            a, fa = d(S)
            b, fb = d(N)
            print(f'| {ph} | {m} | {a} | {b} | {fa} | {fb} |')
    lx = [np.log(slow[k]) for k in range(n)]
    for ph in phases:
        for m in meas:
            ys = [np.log(ratio[k].get((ph, m), np.nan)) for k in range(n)]
            ok = [i for i in range(n) if np.isfinite(ys[i])]
            if len(ok) > 3:
                c = np.corrcoef([lx[i] for i in ok], [ys[i] for i in ok])[0, 1]
                print(f'corr(log slowness, log {ph} {m}) = {c:.2f}')
    if '-v' in sys.argv:
        for k in S:
            print(k, inst[k]['mode'], inst[k]['size'], f'{slow[k]:.2f}',
                  ' '.join(f'{ph}:{m}={ratio[k].get((ph, m), float("nan")):.2f}' for ph in phases for m in meas))

main()
