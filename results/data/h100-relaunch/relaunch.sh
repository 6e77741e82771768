#!/usr/bin/env bash
# relaunch.sh OUT: test_ring_gpu --relaunch on three modes, twice each, with this tree's build (build-gpu, from
# `tests/gpu_session.sh OUT build`) and with a copy of the tree without devring-fix.patch (build-nofix, the
# test program only); one line per run in OUT/relaunch.md, each run's output in OUT/relaunch.log.
set -uo pipefail
out=$1
top=$(pwd)
nofix=/tmp/rb-nofix
rm -rf "$nofix" && mkdir -p "$nofix"
tar --exclude=./build-gpu --exclude=./build-nofix -cf - . | (cd "$nofix" && tar -xf -)
(cd "$nofix" && patch -R -p1 <results/data/h100-relaunch/devring-fix.patch &&
    cmake -S . -B build-nofix -DCMAKE_BUILD_TYPE=Release -DRINGBENCH_CUDA_ARCHITECTURES=90 \
        -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" &&
    cmake --build build-nofix -j "$(nproc)" --target test_ring_gpu) >"$out/nofix-build.log" 2>&1 ||
    { tail -30 "$out/nofix-build.log"; exit 1; }
{
    echo "| build | mode | run | exit | the relaunched kernel before any message |"
    echo "| --- | --- | --- | --- | --- |"
    for m in pinned/zerocopy/coop/mapped pinned/async/coop/mapped malloc/sync/noncoop/device; do
        for run in 1 2; do
            for b in "fix:$top/build-gpu" "nofix:$nofix/build-nofix"; do
                log=$("${b#*:}/tests/test_ring_gpu" --relaunch "$m" 2>&1)
                st=$?
                printf '### %s %s run %s: exit %s\n%s\n\n' "${b%%:*}" "$m" "$run" "$st" "$log" >>"$out/relaunch.log"
                what=$(echo "$log" | grep -o -E "relaunched, nothing sent: [^|]*|took the last launch's message: in_head [0-9]+, out_tail [0-9]+" | head -1)
                echo "| ${b%%:*} | $m | $run | $st | $what |"
            done
        done
    done
} | tee "$out/relaunch.md"
