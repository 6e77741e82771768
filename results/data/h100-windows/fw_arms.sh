#!/usr/bin/env bash
# fw_arms.sh OUT SECONDS ARM...: fw_pad.sh's short full-window processes with address randomisation on
# (as a user runs), process i run as arm (i mod the number of ARMs), each ARM "BINARY:PHASE": that
# ringbench binary, with RB_STACK_PHASE=PHASE (stackphase.patch applied, bench/main.c at_stack_phase; empty: the stack as it
# comes), or "BINARY:PHASE:CLASS", also with RB_CALLEE_CLASS=CLASS (calleeclass.patch). File arm k is the k-th ARM (0-based); fw_procs.py reports each. Written to tell apart what
# sets the full window's per-process level (jobfields.md).
out=$1; budget=$2; shift 2
arms=("$@"); n=${#arms[@]}
dir=/tmp/fwarms
rm -rf "$dir" && mkdir -p "$dir" "$out"
t0=$(date +%s); i=0
while [ $(($(date +%s) - t0)) -lt "$budget" ]; do
    i=$((i + 1)); p=$(printf %03d $i); arm=$((i % n))
    IFS=: read -r rb ph cls <<<"${arms[$arm]}"
    s=$(date +%s%N)
    RB_STACK_PHASE=$ph RB_CALLEE_CLASS=$cls "$rb" run --preset quick --modes host=pinned,xfer=zerocopy,ctrl=mapped\|managed \
        --sizes 8 --window cap --trials 6 --quiet -o "$dir/p$p-a$arm.h5" --force >"$dir/p$p.log" 2>&1
    st=$?
    echo "process $i exit $st $((($(date +%s%N) - s) / 1000000)) ms start $((s / 1000000)) arm $arm ${arms[$arm]}" | tee -a "$out/fwarms.log"
done
python3 "$(dirname "$0")/fw_procs_csv.py" "$dir"/p*.h5 >"$out/fwarms.csv" || echo "fw_procs_csv.py failed"
rm -rf "$dir"
