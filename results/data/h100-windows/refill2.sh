#!/usr/bin/env bash
# refill2.sh OUT [ROUNDS]: after refill2-8e2a50c.patch is applied and tests/gpu_session.sh OUT build has run,
# alternates the experiment's variants on one binary: base; refill (a zero-copy window's refill posted as
# soon as out_tail shows room, its replies verified after); piece4k (verification pieces of 4 KiB of work
# instead of 16); both. anatomy --window 1,8,64,cap, both tables, per mode and size.
out=$1 rounds=${2:-3}
rb=build-gpu/bench/ringbench
for round in $(seq "$rounds"); do
  for v in base refill piece4k both; do
    case $v in
      base) e=() ;;
      refill) e=(RINGBENCH_EXP_REFILL=1) ;;
      piece4k) e=(RINGBENCH_EXP_PIECE=4096) ;;
      both) e=(RINGBENCH_EXP_REFILL=1 RINGBENCH_EXP_PIECE=4096) ;;
    esac
    for ms in "pinned/zerocopy/coop/mapped 8" "pinned/zerocopy/coop/mapped 64" "pinned/zerocopy/coop/mapped 1K" \
      "pinned/zerocopy/coop/mapped 4K" "pinned/zerocopy/noncoop/mapped 4K" "pinned/zerocopy/coop/mapped 16K"; do
      read -r m s <<<"$ms"
      env "${e[@]}" "$rb" anatomy --mode "$m" --size "$s" --window 1,8,64,cap --warmup 0 --seconds 0.3 2>&1 |
        awk -v h="$round $v $m $s" '/^\| +[0-9]+ \|/ {printf "%s | %s\n", h, $0} /error|FAIL|failed/ {print h, $0}'
    done
  done
done >"$out/refill2-rows.txt"
echo "rows: $(wc -l <"$out/refill2-rows.txt")"
