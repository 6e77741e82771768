#!/usr/bin/env bash
# fw_long.sh OUT RUNS TRIALS: RUNS processes in a row, each a quick run of the pinned zero-copy modes at
# 8 B and the full window with TRIALS trials a cell; then results/data/h100-windows/fw_blocks.py 30 over
# them (OUT/fw_long.md); the run files are removed. Run after tests/gpu_session.sh OUT build.
out=$1; runs=$2; trials=$3
rb=build-gpu/bench/ringbench
mkdir -p "$out/fwl"
for i in $(seq 1 "$runs"); do
    s=$(date +%s)
    $rb run --preset quick --modes host=pinned,xfer=zerocopy,ctrl=mapped\|managed --sizes 8 --window cap \
        --trials "$trials" -o "$out/fwl/p$i.h5" --force >"$out/fwl/p$i.log" 2>&1
    echo "process $i exit $? $(($(date +%s) - s)) s"
done
python3 results/data/h100-windows/fw_blocks.py 30 "$out"/fwl/p*.h5 >"$out/fw_long.md" 2>&1; cat "$out/fw_long.md"
rm -rf "$out/fwl"
