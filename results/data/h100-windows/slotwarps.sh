#!/usr/bin/env bash
# slotwarps.sh OUT [ROUNDS] [ALIGNS] [SIZES]: after tests/gpu_session.sh OUT build, builds slotwarps.cu (a warp of
# its own for every message in flight, no leader; see its head) and alternates it with the product's `ringbench
# anatomy --window 1,8,64,256` of the best native mode at the same sizes, ROUNDS times (default 2), with slots of
# each alignment of ALIGNS (default "64 128"), at SIZES (default "8 64 1024 4096"): slotwarps.txt (one row per
# round, alignment, size, K warps and window) and anatomy.txt. The question: is the leader's batch what holds
# W = 64 at 42-50 % of Little's bound (issue 19), or would the bus hold any design there?
out=$1 rounds=${2:-2} aligns=${3:-64 128} sizes=${4:-8 64 1024 4096}
here=$(cd "$(dirname "$0")" && pwd)
rb=build-gpu/bench/ringbench
nvcc -O3 -arch=sm_90 -o /tmp/slotwarps "$here/slotwarps.cu" || exit 1
for round in $(seq "$rounds"); do
  for align in $aligns; do
    for s in $sizes; do
      echo "## round $round, slots aligned to $align bytes, $s B"
      timeout 150 /tmp/slotwarps 1 "$align" "$s" | sed "s/^| 1 |/| $round |/" || echo "slotwarps: round $round failed" >&2
    done
  done >>"$out/slotwarps.txt"
  for s in $sizes; do
    echo "## round $round, $s"
    "$rb" anatomy --mode pinned/zerocopy/coop/mapped --size "$s" --window 1,8,64,256 --warmup 0 --seconds 0.3 2>&1
  done >>"$out/anatomy.txt"
done
grep -c '^| [0-9]' "$out/slotwarps.txt"
