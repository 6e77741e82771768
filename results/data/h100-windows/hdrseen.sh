#!/usr/bin/env bash
# hdrseen.sh OUT [ROUNDS]: after hdrseen-84c65a7.patch is applied and tests/gpu_session.sh OUT build has run,
# alternates on one binary the defaults (a zero-copy window's refill posted once out_tail shows room) with
# RINGBENCH_EXP_HDRSEEN=1 (room counted from the reply headers seen, ahead of out_tail).
# anatomy --window 1,8,64,cap, both tables, per mode and size.
out=$1 rounds=${2:-3}
rb=build-gpu/bench/ringbench
for round in $(seq "$rounds"); do
  for v in base hdrseen; do
    case $v in
      base) e=() ;;
      hdrseen) e=(RINGBENCH_EXP_HDRSEEN=1) ;;
    esac
    for ms in "pinned/zerocopy/coop/mapped 8" "pinned/zerocopy/coop/mapped 64" "pinned/zerocopy/coop/mapped 1K" \
      "pinned/zerocopy/coop/mapped 4K" "pinned/zerocopy/noncoop/managed 4K" "pinned/zerocopy/coop/mapped 16K"; do
      read -r m s <<<"$ms"
      env "${e[@]}" "$rb" anatomy --mode "$m" --size "$s" --window 1,8,64,cap --warmup 0 --seconds 0.3 2>&1 |
        awk -v h="$round $v $m $s" '/^\| +[0-9]+ \|/ {printf "%s | %s\n", h, $0} /error|FAIL|failed/ {print h, $0}'
    done
  done
done >"$out/hdrseen-rows.txt"
echo "rows: $(wc -l <"$out/hdrseen-rows.txt")"
