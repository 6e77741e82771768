#!/usr/bin/env bash
# hdr-ab.sh OUT [ROUNDS]: after tests/gpu_session.sh OUT build, alternates the defaults (a refilling
# pump counts a reply answered once its header is in the output ring, up to 256 in flight) with
# --refill-on-tail (only once out_tail announces it, the rule of 8bdc03e) on the same binary:
# ringbench anatomy --window 1,8,64,cap, both tables, per mode and size (hdr-ab-rows.txt). The staged
# control block (noncoop/device) does not refill at all: the control.
out=$1 rounds=${2:-3}
rb=build-gpu/bench/ringbench
for round in $(seq "$rounds"); do
  for v in headers on-tail; do
    sw=()
    [ "$v" = on-tail ] && sw=(--refill-on-tail)
    for ms in "pinned/zerocopy/coop/mapped 8" "pinned/zerocopy/coop/mapped 64" "pinned/zerocopy/coop/mapped 1K" \
      "pinned/zerocopy/coop/mapped 4K" "pinned/zerocopy/noncoop/managed 4K" "pinned/zerocopy/coop/mapped 16K" \
      "pinned/zerocopy/noncoop/device 4K"; do
      read -r m s <<<"$ms"
      "$rb" anatomy --mode "$m" --size "$s" --window 1,8,64,cap --warmup 0 --seconds 0.3 "${sw[@]}" 2>&1 |
        awk -v h="$round $v $m $s" '/^\| +[0-9]+ \|/ {printf "%s | %s\n", h, $0} /error|FAIL|failed/ {print h, $0}'
    done
  done
done >"$out/hdr-ab-rows.txt"
echo "rows: $(wc -l <"$out/hdr-ab-rows.txt")"
