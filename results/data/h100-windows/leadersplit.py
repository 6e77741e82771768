# leadersplit.py FILE: the output of leadersplit.sh as a table: rate (M msg/s) per (mode size window) x build, rounds in order
import sys, collections
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    if '|' not in line or 'lone' in line: continue
    head, rest = line.split('|', 1)
    f = head.split()
    if len(f) < 4: continue
    rnd, b, m, s = f[:4]
    cells = [c.strip() for c in rest.split('|')]
    cells = [c for c in cells if c != '']
    if len(cells) < 10: continue  # the second table has 8 columns
    w, rate = cells[0], cells[1]
    rows.setdefault((m, s, int(w)), collections.defaultdict(list))[b].append(rate)
    rows[(m, s, int(w))].setdefault('bound', []).append(cells[2]) if b == 'head' else None
builds = ['head', 's32', 's64']
print('| mode, size, window | ' + ' | '.join(builds) + ' |')
print('| --- |' + ' --- |' * len(builds))
for (m, s, w), d in rows.items():
    print(f'| {m} {s} w{w} | ' + ' | '.join(' '.join(d.get(b, [])) for b in builds) + ' |')
