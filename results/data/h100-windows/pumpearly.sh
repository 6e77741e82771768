#!/usr/bin/env bash
# pumpearly.sh OUT [ROUNDS]: after pumpearly.patch is applied and tests/gpu_session.sh OUT build has run,
# alternates on one binary the defaults (a pump that counts reply headers takes no reply early) with
# RINGBENCH_EXP_PUMP_EARLY=1 (it takes small replies early too, the rule of 0fa07f8): ringbench anatomy
# --window 1,8,64,cap, both tables, per mode and size (pumpearly-rows.txt).
out=$1 rounds=${2:-3}
rb=build-gpu/bench/ringbench
for round in $(seq "$rounds"); do
  for v in none early; do
    e=()
    [ "$v" = early ] && e=(RINGBENCH_EXP_PUMP_EARLY=1)
    for ms in "pinned/zerocopy/coop/mapped 8" "pinned/zerocopy/noncoop/managed 8" "pinned/zerocopy/coop/mapped 64" \
      "pinned/zerocopy/coop/mapped 256" "pinned/zerocopy/coop/mapped 4K"; do
      read -r m s <<<"$ms"
      env "${e[@]}" "$rb" anatomy --mode "$m" --size "$s" --window 1,8,64,cap --warmup 0 --seconds 0.3 2>&1 |
        awk -v h="$round $v $m $s" '/^\| +[0-9]+ \|/ {printf "%s | %s\n", h, $0} /error|FAIL|failed/ {print h, $0}'
    done
  done
done >"$out/pumpearly-rows.txt"
echo "rows: $(wc -l <"$out/pumpearly-rows.txt")"
