#!/usr/bin/env bash
# fw_trials.sh OUT SECONDS: the 8 B full window of the pinned zero-copy modes in quick runs of 3 trials
# (what a nightly run has) against quick runs of 30 trials, alternated until SECONDS have passed; the run
# files go to OUT/fw/, are read by results/data/h100-windows/fw_read.py into OUT/fw_read.md and removed.
# Does the run-to-run spread of the pooled figure fall with trials? Run after tests/gpu_session.sh OUT build.
out=$1; budget=$2
rb=build-gpu/bench/ringbench
mkdir -p "$out/fw"
t0=$(date +%s); i=0
while [ $(($(date +%s) - t0)) -lt "$budget" ]; do
    i=$((i + 1))
    for T in 3 30; do
        s=$(date +%s)
        $rb run --preset quick --modes host=pinned,xfer=zerocopy,ctrl=mapped\|managed --sizes 8 --window cap \
            --trials $T -o "$out/fw/r$(printf %02d $i)-t$T.h5" --force >"$out/fw/r$(printf %02d $i)-t$T.log" 2>&1
        echo "pair $i trials $T exit $? $(($(date +%s) - s)) s"
    done
done
python3 results/data/h100-windows/fw_read.py "$out"/fw/*.h5 >"$out/fw_read.md" 2>&1; cat "$out/fw_read.md"
rm -rf "$out/fw"
