#!/usr/bin/env bash
# fw_procs.sh OUT SECONDS: short processes back to back, each a quick run of the pinned zero-copy modes at
# 8 B and the full window only with 6 trials a cell, until SECONDS have passed; every trial of every
# process goes to OUT/fwprocs.csv (fw_procs_csv.py) and the run files are removed. fw_procs.py reads the
# CSV: how often one process sits off the others, and how steady the median of several processes a night
# would be (issue 18). Run after tests/gpu_session.sh OUT build.
out=$1; budget=$2
rb=${RINGBENCH_RB:-build-gpu/bench/ringbench}
dir=/tmp/fwprocs
rm -rf "$dir" && mkdir -p "$dir"
t0=$(date +%s); i=0
while [ $(($(date +%s) - t0)) -lt "$budget" ]; do
    i=$((i + 1)); p=$(printf %03d $i)
    s=$(date +%s%N)
    $rb run --preset quick --modes host=pinned,xfer=zerocopy,ctrl=mapped\|managed --sizes 8 --window cap \
        --trials 6 --quiet -o "$dir/p$p.h5" --force >"$dir/p$p.log" 2>&1
    st=$?
    echo "process $i exit $st $((($(date +%s%N) - s) / 1000000)) ms start $((s / 1000000))" | tee -a "$out/fwprocs.log"
done
python3 "$(dirname "$0")/fw_procs_csv.py" "$dir"/p*.h5 >"$out/fwprocs.csv" || echo "fw_procs_csv.py failed"
tail -3 "$dir/p001.log" >>"$out/fwprocs.log" 2>/dev/null
rm -rf "$dir"
