#!/usr/bin/env bash
# fw_phase.sh OUT SECONDS [STEP]: fw_pad.sh's short full-window processes with address randomisation
# on (as a user runs), process i run at stack phase arm (i mod (4096/STEP + 1)): arm 0 as it comes,
# arm k >= 1 with RB_STACK_PHASE=(k-1) x STEP, which drops the command's frames to that offset within
# a 4 KiB page (stackphase.patch applied: bench/main.c at_stack_phase). If the full window's rate follows the arm, the stack's
# page offset sets the per-process level (fwpad-8c15332.md, jobfields.md) and a fixed phase
# removes it. fw_procs.py reports each arm.
out=$1; budget=$2; step=${3:-256}
rb=${RINGBENCH_RB:-build-gpu/bench/ringbench}
arms=$((4096 / step + 1))
dir=/tmp/fwphase
rm -rf "$dir" && mkdir -p "$dir" "$out"
t0=$(date +%s); i=0
while [ $(($(date +%s) - t0)) -lt "$budget" ]; do
    i=$((i + 1)); p=$(printf %03d $i); arm=$((i % arms))
    if [ $arm = 0 ]; then ph=; else ph=$(((arm - 1) * step)); fi
    s=$(date +%s%N)
    RB_STACK_PHASE=$ph $rb run --preset quick --modes host=pinned,xfer=zerocopy,ctrl=mapped\|managed \
        --sizes 8 --window cap --trials 6 --quiet -o "$dir/p$p-a$arm.h5" --force >"$dir/p$p.log" 2>&1
    st=$?
    echo "process $i exit $st $((($(date +%s%N) - s) / 1000000)) ms start $((s / 1000000)) arm $arm phase ${ph:-none}" | tee -a "$out/fwphase.log"
done
python3 "$(dirname "$0")/fw_procs_csv.py" "$dir"/p*.h5 >"$out/fwphase.csv" || echo "fw_procs_csv.py failed"
rm -rf "$dir"
