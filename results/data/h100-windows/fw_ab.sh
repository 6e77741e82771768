#!/usr/bin/env bash
# fw_ab.sh OUT N SIZE: N rounds; each: two modes at SIZE, ringbench anatomy --window 64,cap, arm A (verify
# pieces by payload, the build as it was) then arm B (RB_XP_PIECE=1: pieces by work), with the experiment
# patch xp-verify-pieces.patch applied (it also prints where a post's time goes, "xp ..." at ring_close)
out=$1; n=$2; size=${3:-8}; rb=build-gpu/bench/ringbench
for i in $(seq 1 "$n"); do
  for m in pinned/zerocopy/coop/mapped pinned/async/coop/mapped; do
    for arm in A B; do
      if [ $arm = B ]; then export RB_XP_PIECE=1; else unset RB_XP_PIECE; fi
      o=$("$rb" anatomy --mode "$m" --size "$size" --window 64,cap --warmup 0.3 --seconds 0.2 2>&1)
      echo "$i $arm $m $(echo "$o" | grep -E '^\| +[0-9]+ \|' | sed -n 2p | tr -s ' ') W64 $(echo "$o" | grep -E '^\| +64 \|' | head -1 | tr -s ' ') XP $(echo "$o" | grep '^xp' | tail -1)"
    done
  done
done > "$out/fw-$size.txt"
