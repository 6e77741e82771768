#!/usr/bin/env bash
# A/B of two kernels, rounds in the order A B, B A, A B, ...: anatomy windows per mode and size.
# usage: results/data/h100-windows/group-ab.sh OUT KERNEL_A ROUNDS, from the tree's root after
# `tests/gpu_session.sh OUT build` (B = this tree in build-gpu); ABSET=two: async 8 B and lone 8 B / 1 KiB only
set -uo pipefail
out=$1 ka=$2 rounds=$3
ab=/tmp/ringbench-ab
rm -rf "$ab" && mkdir -p "$ab" && tar --exclude=./build-gpu --exclude=./results/data -cf - . | tar -xf - -C "$ab"
cp "$ka" "$ab/kernels/ring_kernel.cu"
(cd "$ab" && cmake -S . -B build-ab -DCMAKE_BUILD_TYPE=Release -DRINGBENCH_CUDA_ARCHITECTURES=90 >/dev/null && cmake --build build-ab -j16 >/dev/null) || exit 1
bA=$ab/build-ab/bench/ringbench bB=build-gpu/bench/ringbench
two() { # two ROUND SIDE BIN: async 8 B windows, lone 8 B and 1 KiB
    local r=$1 side=$2 b=$3
    "$b" anatomy --mode pinned/async/coop/mapped --size 8 --window 1,8,64 --warmup 0 --seconds 0.3 2>&1 | awk -v h="$r $side pinned/async/coop/mapped 8" '/^\| +[0-9]+ \|.*%/ {printf "%s %s\n", h, $0}'
    for s in 8 1K; do
        "$b" anatomy --mode pinned/zerocopy/coop/mapped --size $s --warmup 1 2>&1 | awk -v h="$r $side lone $s" '/^\| (round trip|poll|work|publish|outside)/ {printf "%s %s\n", h, $0}'
    done
}
one() { # one ROUND SIDE BIN
    local r=$1 side=$2 b=$3
    for m in pinned/zerocopy/coop/mapped pinned/zerocopy/noncoop/mapped pinned/async/coop/mapped; do
        "$b" anatomy --mode $m --size 8 --window 1,8,64 --warmup 0 --seconds 0.3 2>&1 | awk -v h="$r $side $m 8" '/^\| +[0-9]+ \|.*%/ {printf "%s %s\n", h, $0}'
        "$b" anatomy --mode $m --size 2K --window 8 --warmup 0 --seconds 0.3 2>&1 | awk -v h="$r $side $m 2K" '/^\| +[0-9]+ \|.*%/ {printf "%s %s\n", h, $0}'
        "$b" anatomy --mode $m --size 4K --window 8 --warmup 0 --seconds 0.3 2>&1 | awk -v h="$r $side $m 4K" '/^\| +[0-9]+ \|.*%/ {printf "%s %s\n", h, $0}'
        "$b" anatomy --mode $m --size 16K --window 1 --warmup 0 --seconds 0.3 2>&1 | awk -v h="$r $side $m 16K" '/^\| +[0-9]+ \|.*%/ {printf "%s %s\n", h, $0}'
    done
    "$b" anatomy --mode pinned/zerocopy/coop/mapped --size 8 --warmup 1 2>&1 | awk -v h="$r $side lone 8" '/^\| (round trip|poll|work|publish|outside)/ {printf "%s %s\n", h, $0}'
}
for r in $(seq 1 "$rounds"); do
    f=${ABSET:-one}
    if [ $((r % 2)) = 1 ]; then $f $r A $bA; $f $r B $bB; else $f $r B $bB; $f $r A $bA; fi
done
