#!/usr/bin/env bash
# fw_padab.sh OUT SECONDS A B [ARMS]: fw_pad.sh's processes (address randomisation off, the
# environment padded by ARMS steps of 520 bytes) alternating between two ringbench binaries A and B,
# process by process, each pad run by A and then by B back to back, so that both meet the machine as
# it drifts. File arm = binary x ARMS + pad (A's arms 0..ARMS-1, B's ARMS..2 ARMS-1); fw_procs.py
# reports them per arm. Written to test jobline.patch (fwpad-8c15332.md): A the ring as it is, B
# with the patch.
out=$1; budget=$2; a=$3; b=$4; arms=${5:-8}
dir=/tmp/fwpadab
rm -rf "$dir" && mkdir -p "$dir" "$out"
t0=$(date +%s); i=0
while [ $(($(date +%s) - t0)) -lt "$budget" ]; do
    i=$((i + 1)); p=$(printf %03d $i); bin=$((i % 2)); pa=$(((i / 2) % arms)); arm=$((bin * arms + pa))
    if [ $bin = 0 ]; then rb=$a; else rb=$b; fi
    pad=$(head -c $((pa * 520)) /dev/zero | tr '\0' x)
    s=$(date +%s%N)
    RB_PAD=$pad setarch x86_64 -R "$rb" run --preset quick --modes host=pinned,xfer=zerocopy,ctrl=mapped\|managed \
        --sizes 8 --window cap --trials 6 --quiet -o "$dir/p$p-a$arm.h5" --force >"$dir/p$p.log" 2>&1
    st=$?
    echo "process $i exit $st $((($(date +%s%N) - s) / 1000000)) ms start $((s / 1000000)) arm $arm" | tee -a "$out/fwpadab.log"
done
python3 "$(dirname "$0")/fw_procs_csv.py" "$dir"/p*.h5 >"$out/fwpadab.csv" || echo "fw_procs_csv.py failed"
rm -rf "$dir"
