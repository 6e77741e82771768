#!/usr/bin/env bash
# refill-ab.sh OUT [ROUNDS]: after tests/gpu_session.sh OUT build, alternates the defaults (a zero-copy
# window's refill posted once out_tail shows its replies) with --verify-first (the rule before) on the
# same binary: ringbench anatomy --window 1,8,64,cap, both tables, per mode and size (refill-ab-rows.txt).
out=$1 rounds=${2:-2}
rb=build-gpu/bench/ringbench
for round in $(seq "$rounds"); do
  for v in refill verify-first; do
    sw=()
    [ "$v" = verify-first ] && sw=(--verify-first)
    for ms in "pinned/zerocopy/coop/mapped 8" "pinned/zerocopy/coop/mapped 64" "pinned/zerocopy/coop/mapped 1K" \
      "pinned/zerocopy/coop/mapped 4K" "pinned/zerocopy/noncoop/managed 4K" "pinned/zerocopy/coop/mapped 16K" \
      "pinned/async/coop/mapped 4K"; do
      read -r m s <<<"$ms"
      "$rb" anatomy --mode "$m" --size "$s" --window 1,8,64,cap --warmup 0 --seconds 0.3 "${sw[@]}" 2>&1 |
        awk -v h="$round $v $m $s" '/^\| +[0-9]+ \|/ {printf "%s | %s\n", h, $0} /error|FAIL|failed/ {print h, $0}'
    done
  done
done >"$out/refill-ab-rows.txt"
echo "rows: $(wc -l <"$out/refill-ab-rows.txt")"
