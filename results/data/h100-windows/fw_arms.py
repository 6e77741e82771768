#!/usr/bin/env python3
"""fw_arms.py CSV[.gz] NAME... [--groups G1=NAME,NAME G2=...]: fw_arms.sh's (or fw_padab.sh's,
fw_phase.sh's) processes per arm, arm k named by the k-th NAME: each process's pooled figure (the best
of the four cells' first 3 trials, as `track` pools a quick run), the arm's median, its spread between
processes (1.4826 MAD of the log, %) and every process sorted, as a markdown table. With groups, the
difference of the groups' medians and a permutation p-value (5 000 shuffles of the processes between
the groups), and the p-value of the spread of the arms' medians within each group."""
import csv, gzip, sys
from collections import defaultdict
import numpy as np

from fw_procs import mad, pooled


args = sys.argv[1:]
groups = {}
if "--groups" in args:
    i = args.index("--groups")
    groups = {g.split("=")[0]: g.split("=")[1].split(",") for g in args[i + 1:]}
    args = args[:i]
path, names = args[0], args[1:]
with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
    rows = list(csv.DictReader(l for l in fh if not l.startswith("#")))
by = defaultdict(list)
for r in rows:
    by[(int(r["proc"]), int(r["arm"]))].append(r)
arm = defaultdict(list)
for k in sorted(by):
    arm[names[k[1]] if k[1] < len(names) else str(k[1])].append(pooled(by[k], 3) / 1e6)
print("| arm | processes | median M msg/s | spread | every process, sorted |\n| --- | ---: | ---: | ---: | --- |")
for a in (names or sorted(arm)):
    if a in arm:
        v = np.array(arm[a])
        print(f"| {a} | {len(v)} | {np.median(v):.1f} | {mad(v):.1f} % | " + " ".join(f"{x:.0f}" for x in sorted(v)) + " |")
rng = np.random.default_rng(1)
for g, members in groups.items():
    v = np.concatenate([arm[a] for a in members if a in arm])
    meds = [np.median(arm[a]) for a in members if a in arm]
    lab = np.concatenate([[i] * len(arm[a]) for i, a in enumerate(members) if a in arm])
    stat = lambda l: np.var([np.median(v[l == i]) for i in set(l)])
    s0 = stat(lab)
    p = (1 + sum(stat(rng.permutation(lab)) >= s0 for _ in range(5000))) / 5001
    print(f"group {g}: {len(v)} processes, median {np.median(v):.1f}, spread {mad(v):.1f} %, "
          f"arms' medians {min(meds):.1f}-{max(meds):.1f}, p (arms differ) = {p:.4f}")
gs = list(groups)
for i in range(len(gs)):
    for j in range(i + 1, len(gs)):
        x = np.concatenate([arm[a] for a in groups[gs[i]] if a in arm])
        y = np.concatenate([arm[a] for a in groups[gs[j]] if a in arm])
        d0 = abs(np.median(x) - np.median(y))
        z = np.concatenate([x, y])
        c = sum(abs(np.median(p[:len(x)]) - np.median(p[len(x):])) >= d0
                for p in (rng.permutation(z) for _ in range(5000)))
        print(f"{gs[i]} against {gs[j]}: {np.median(x):.1f} against {np.median(y):.1f} M msg/s "
              f"({100 * (np.median(x) / np.median(y) - 1):+.1f} %), p = {(c + 1) / 5001:.4f}")
