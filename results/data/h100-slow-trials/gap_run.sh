#!/usr/bin/env bash
# EXPERIMENT (issue 18): does a short pause or a host memory pass between trials change the slow share?
set -uo pipefail
out=$1
git apply results/data/h100-slow-trials/gap-b1eeb3e.patch 2>/dev/null || patch -p1 <results/data/h100-slow-trials/gap-b1eeb3e.patch
bash tests/gpu_session.sh "$out" build >/dev/null || exit 1
rb=build-gpu/bench/ringbench
mkdir -p "$out/runs"
t00=$(date +%s)
for i in 1 2 3 4; do
  for arm in S C P; do
    [ $(( $(date +%s) - t00 )) -gt 480 ] && break 2
    case $arm in S) g= ;; C) g=canary ;; P) g=sleep ;; esac
    t0=$(date +%s%N)
    RINGBENCH_GAP=$g timeout 120 "$rb" run --preset quick --quiet -o "$out/runs/$arm$i.h5" --force >/dev/null 2>"$out/runs/$arm$i.log"
    echo "$arm$i exit $? $(( ($(date +%s%N) - t0) / 1000000 )) ms $(python3 results/data/h100-slow-trials/steal_rate.py "$out/runs/$arm$i.h5" | cut -d'|' -f1)"
  done
done | tee "$out/arms.txt"
(cd "$out/runs" && tar -czf "$out/runs-h5.tgz" ./*.h5 && rm -rf "$out/runs")
