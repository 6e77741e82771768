#!/usr/bin/env bash
# fw_procs.sh OUT SECONDS [WRAP...]: short processes back to back, each a quick run of the pinned
# zero-copy modes at 8 B and the full window only with 6 trials a cell, until SECONDS have passed; every
# trial of every process goes to OUT/fwprocs.csv (fw_procs_csv.py) and the run files are removed.
# fw_procs.py reads the CSV: how often one process sits off the others, and how steady the median of
# several processes a night would be (issue 18). With WRAP (a command prefix, such as
# `setarch x86_64 -R` to turn address randomisation off), every second process runs under it (arm 1,
# the others arm 0), so the two arms alternate and fw_procs.py reports each.
# Run after tests/gpu_session.sh OUT build.
out=$1; budget=$2; shift 2
wrap=("$@")
rb=${RINGBENCH_RB:-build-gpu/bench/ringbench}
dir=/tmp/fwprocs
rm -rf "$dir" && mkdir -p "$dir"
t0=$(date +%s); i=0
while [ $(($(date +%s) - t0)) -lt "$budget" ]; do
    i=$((i + 1)); p=$(printf %03d $i)
    pre=(); arm=0
    if [ ${#wrap[@]} -gt 0 ] && [ $((i % 2)) -eq 0 ]; then pre=("${wrap[@]}"); arm=1; fi
    s=$(date +%s%N)
    "${pre[@]}" $rb run --preset quick --modes host=pinned,xfer=zerocopy,ctrl=mapped\|managed --sizes 8 --window cap \
        --trials 6 --quiet -o "$dir/p$p-a$arm.h5" --force >"$dir/p$p.log" 2>&1
    st=$?
    echo "process $i exit $st $((($(date +%s%N) - s) / 1000000)) ms start $((s / 1000000)) arm $arm" | tee -a "$out/fwprocs.log"
done
python3 "$(dirname "$0")/fw_procs_csv.py" "$dir"/p*.h5 >"$out/fwprocs.csv" || echo "fw_procs_csv.py failed"
tail -3 "$dir/p001.log" >>"$out/fwprocs.log" 2>/dev/null
rm -rf "$dir"
