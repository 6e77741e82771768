#!/usr/bin/env bash
# group-slowab.sh OUT KERNEL_A: default-preset runs at 8 B and 64 B, A (KERNEL_A) and B (this tree, built
# into build-gpu by tests/gpu_session.sh OUT build) in the order A B B A; run from the tree's root.
set -uo pipefail
out=$1 ka=$2
ab=/tmp/ringbench-ab
rm -rf "$ab" && mkdir -p "$ab" && tar --exclude=./build-gpu --exclude=./results/data -cf - . | tar -xf - -C "$ab"
cp "$ka" "$ab/kernels/ring_kernel.cu"
(cd "$ab" && cmake -S . -B build-ab -DCMAKE_BUILD_TYPE=Release -DRINGBENCH_CUDA_ARCHITECTURES=90 >/dev/null && cmake --build build-ab -j16 >/dev/null) || exit 1
i=0
for side in A B B A; do
    i=$((i + 1))
    b=build-gpu/bench/ringbench
    [ "$side" = A ] && b=$ab/build-ab/bench/ringbench
    /usr/bin/time -f "$i $side %e s" "$b" run --preset default --sizes 8,64 -o "$out/r$i-$side.h5" --force >"$out/r$i-$side.log" 2>&1
    tail -1 "$out/r$i-$side.log"
done
