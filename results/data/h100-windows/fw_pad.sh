#!/usr/bin/env bash
# fw_pad.sh OUT SECONDS [ARMS]: the short full-window processes of fw_procs.sh, all with address
# randomisation off (setarch x86_64 -R), process i with an environment padded by (i mod ARMS) x 520
# bytes (default 8 arms: 0 to 3640 bytes), so that its initial stack, and every frame of the polling
# thread (the main thread) below it, sits that much lower while every other address stays where it
# was. fw_procs.py reports each padding as an arm: if the arms' medians differ beyond their processes'
# spread, where the main thread's stack falls against the ring's buffers sets the full window's rate
# (ctxaslr-02a590c.md: randomisation off ran 16 % faster). 520 is not a multiple of 64, so the pads
# move the stack across cache lines and 4 KiB pages alike. Run after tests/gpu_session.sh OUT build.
out=$1; budget=$2; arms=${3:-8}
rb=${RINGBENCH_RB:-build-gpu/bench/ringbench}
dir=/tmp/fwpad
rm -rf "$dir" && mkdir -p "$dir" "$out"
t0=$(date +%s); i=0
while [ $(($(date +%s) - t0)) -lt "$budget" ]; do
    i=$((i + 1)); p=$(printf %03d $i); arm=$((i % arms))
    pad=$(head -c $((arm * 520)) /dev/zero | tr '\0' x)
    s=$(date +%s%N)
    RB_PAD=$pad setarch x86_64 -R $rb run --preset quick --modes host=pinned,xfer=zerocopy,ctrl=mapped\|managed \
        --sizes 8 --window cap --trials 6 --quiet -o "$dir/p$p-a$arm.h5" --force >"$dir/p$p.log" 2>&1
    st=$?
    echo "process $i exit $st $((($(date +%s%N) - s) / 1000000)) ms start $((s / 1000000)) arm $arm" | tee -a "$out/fwpad.log"
done
python3 "$(dirname "$0")/fw_procs_csv.py" "$dir"/p*.h5 >"$out/fwpad.csv" || echo "fw_procs_csv.py failed"
rm -rf "$dir"
