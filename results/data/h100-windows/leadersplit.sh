#!/usr/bin/env bash
# leadersplit.sh OUT: the leader answering a batch of more than RK_AHEAD_MAX small messages 15 at a time
# (RK_LEADER_SPLIT_MAX) against the kernel before (head), alternated ROUNDS times (leadersplit-9d1c38e.md).
# The first call also built the limit at 64 ("s64": sed of RK_LEADER_SPLIT_MAX on the tree's kernel).
# Run after `tests/gpu_session.sh OUT build` (s32 = build-gpu, the tree's kernel).
out=$1
source <(sed -n '/^window_rows()/,/^}/p;/^configure_build()/,/^}/p' tests/gpu_session.sh)
mk() { # mk NAME KERNELFILE
    local d=/tmp/rb-$1
    rm -rf "$d" && mkdir -p "$d" && tar --exclude=./build-gpu --exclude=./results/data -cf - . | tar -xf - -C "$d"
    cp "$2" "$d/kernels/ring_kernel.cu"
    (cd "$d" && configure_build build-x "$out/build-$1.log") || exit 1
}
mk head xp/ring_kernel_head.cu  # git show 9612974:kernels/ring_kernel.cu
bins=(head:/tmp/rb-head/build-x/bench/ringbench s32:build-gpu/bench/ringbench)
for round in $(seq 1 ${ROUNDS:-3}); do
    for b in "${bins[@]}"; do
        n=${b%%:*} x=${b#*:}
        "$x" anatomy --mode pinned/zerocopy/coop/mapped --size 8 --warmup 1 2>&1 |
            awk -v h="$round $n lone8" '/^\| (round trip|poll|work|publish|floor)/ {printf "%s %s\n", h, $0}'
        for m in pinned/zerocopy/coop/mapped pinned/zerocopy/noncoop/mapped pinned/async/coop/mapped; do
            window_rows "$round $n $m 8" "$x" --mode "$m" --size 8 --window 1,8,16,24,32,48,64,cap --warmup 0 --seconds 0.3
        done
        window_rows "$round $n pinned/zerocopy/coop/mapped 16" "$x" --mode pinned/zerocopy/coop/mapped --size 16 --window 1,8,16,32,64 --warmup 0 --seconds 0.3
    done
done
