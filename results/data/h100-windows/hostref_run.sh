#!/usr/bin/env bash
# EXPERIMENT (issue 18): does a CPU-backend ring, measured right after, follow the GPU ring's 8 B full window?
set -uo pipefail
out=$1
bash tests/gpu_session.sh "$out" build >/dev/null || exit 1
rb=build-gpu/bench/ringbench
mkdir -p "$out/runs"
t00=$(date +%s)
args=(run --preset quick --sizes 8 --modes host=pinned,xfer=zerocopy --window cap --trials 1 --quiet --force)
for i in $(seq -w 1 60); do
  [ $(( $(date +%s) - t00 )) -gt 400 ] && break
  "$rb" "${args[@]}" --backend cuda -o "$out/runs/g$i.h5" >/dev/null 2>&1 || echo "g$i failed"
  "$rb" "${args[@]}" --backend cpu -o "$out/runs/c$i.h5" >/dev/null 2>&1 || echo "c$i failed"
  "$rb" "${args[@]}" --backend cuda -o "$out/runs/h$i.h5" >/dev/null 2>&1 || echo "h$i failed"
done
PY3=${PY3:-python3}; $PY3 - "$out/runs" <<'PY' | tee "$out/hostref.txt"
import sys, glob, os, h5py, numpy as np
d = sys.argv[1]
def fw(p):
    t = h5py.File(p, 'r')['trials'][:]
    m = (t['family'] == b'throughput') & (t['status'] == b'ok') & (t['ctrl'] != b'device')
    return float(np.median(t['msgs_per_s'][m])) / 1e6 if m.any() else float('nan')
ids = sorted(os.path.basename(p)[1:-3] for p in glob.glob(d + '/g*.h5'))
rows = [(i, fw(f'{d}/g{i}.h5'), fw(f'{d}/c{i}.h5'), fw(f'{d}/h{i}.h5')) for i in ids if os.path.exists(f'{d}/h{i}.h5')]
for r in rows:
    print('%s gpu %.1f cpu %.1f gpu2 %.1f' % r)
a = np.log(np.array([r[1:] for r in rows]))
sd = lambda x: 100 * np.std(x, ddof=1)
print('n', len(rows), 'sd%% gpu %.1f cpu %.1f gpu2 %.1f' % (sd(a[:,0]), sd(a[:,1]), sd(a[:,2])))
print('corr gpu~cpu %.2f  gpu2~cpu %.2f  gpu~gpu2 %.2f' % (np.corrcoef(a[:,0], a[:,1])[0,1], np.corrcoef(a[:,2], a[:,1])[0,1], np.corrcoef(a[:,0], a[:,2])[0,1]))
g = (a[:,0] + a[:,2]) / 2
print('sd%% of mean(gpu,gpu2) %.1f; after dividing by cpu %.1f; after removing the fitted slope %.1f' % (sd(g), sd(g - a[:,1]), sd(g - np.polyfit(a[:,1], g, 1)[0] * a[:,1])))
PY
(cd "$out/runs" && tar -czf "$out/runs-h5.tgz" ./*.h5 && rm -rf "$out/runs")
