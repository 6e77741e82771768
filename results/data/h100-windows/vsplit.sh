#!/usr/bin/env bash
# vsplit.sh OUT [ROUNDS]: after `patch -p1 < results/data/h100-windows/vsplit.patch` and tests/gpu_session.sh OUT
# build, alternates on one binary the product's rule for sharing a pass of reply checks over the pool (its work
# reaches --verify-split, 32 KiB) with RINGBENCH_EXP_VSPLIT=rest (the work left after the poller's own piece
# reaches it) and =pieces3 (at least three pieces): ringbench anatomy --window 1,8,64,cap, both tables, per mode
# and size (vsplit-rows.txt; each line: round, variant, mode, size, then an anatomy row). The question: does 4 KiB
# at W = 8 (two pieces: 33 KiB) gain in copy modes, as `--verify-split 0` suggested in the guard of 1c24dfc
# (aa-1c24dfc.md), without losing the 8 B full window or 16-64 KiB at W = 8?
out=$1 rounds=${2:-2}
rb=build-gpu/bench/ringbench
for round in $(seq "$rounds"); do
  for v in product rest pieces3; do
    e=()
    [ "$v" != product ] && e=("RINGBENCH_EXP_VSPLIT=$v")
    for ms in "pinned/zerocopy/coop/mapped 8" "pinned/async/coop/mapped 8" "pinned/zerocopy/coop/mapped 4K" \
      "pinned/async/coop/mapped 4K" "pinned/sync/noncoop/managed 4K" "malloc/sync/noncoop/device 4K" \
      "pinned/zerocopy/coop/mapped 16K" "pinned/async/coop/mapped 16K" "pinned/async/coop/mapped 64K"; do
      read -r m s <<<"$ms"
      env "${e[@]}" "$rb" anatomy --mode "$m" --size "$s" --window 1,8,64,cap --warmup 0 --seconds 0.3 2>&1 |
        awk -v h="$round $v $m $s" '/^\| +[0-9]+ \|/ {printf "%s | %s\n", h, $0} /error|FAIL|failed/ {print h, $0}'
    done
  done
done >"$out/vsplit-rows.txt"
echo "rows: $(wc -l <"$out/vsplit-rows.txt")"
