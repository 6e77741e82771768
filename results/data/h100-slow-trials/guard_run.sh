#!/usr/bin/env bash
# EXPERIMENT (issue 18): the host-memory guard against no guard, alternated, quick runs.
set -uo pipefail
out=$1
git apply results/data/h100-slow-trials/guard-a1f0fd1.patch 2>/dev/null || patch -p1 <results/data/h100-slow-trials/guard-a1f0fd1.patch
bash tests/gpu_session.sh "$out" build || exit 1
rb=build-gpu/bench/ringbench
mkdir -p "$out/runs"
t00=$(date +%s)
for i in 1 2 3 4 5; do
  for arm in N G; do
    [ $(( $(date +%s) - t00 )) -gt 470 ] && break 2
    r=0; [ $arm = G ] && r=1.3
    t0=$(date +%s%N)
    RINGBENCH_GUARD=$r RINGBENCH_GUARD_MAX=15 timeout 150 "$rb" run --preset quick --quiet -o "$out/runs/$arm$i.h5" --force 2>"$out/runs/$arm$i.log" >"$out/runs/$arm$i.out"
    st=$?
    echo "$arm$i exit $st $(( ($(date +%s%N) - t0) / 1000000 )) ms waits $(awk '/^guard/ && $7>0 {n++; w+=$7} END {print n+0, w+0}' "$out/runs/$arm$i.log")"
  done
done | tee "$out/arms.txt"
(cd "$out/runs" && tar -czf "$out/runs-h5.tgz" ./*.h5 && tar -czf "$out/runs-logs.tgz" ./*.log ./*.out && rm -rf "$out/runs")
ls -la "$out"
