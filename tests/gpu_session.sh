#!/usr/bin/env bash
# gpu_session.sh - what the H100 runs quoted in README.md and results/RESULTS.md are made of, as one script a GPU machine
# runs over a copy of the tree (no .git there: the commit comes in RINGBENCH_GIT_COMMIT).
#
#   tests/gpu_session.sh OUTDIR STEP...
#
# Steps (in the order given):
#   build     configure (sm_90 only, to build fast) and build into build-gpu/ (log: build-gpu.log)
#   gputests  ctest -L gpu, then compute-sanitizer memcheck/racecheck/synccheck on the ring kernel
#   sanitize  the compute-sanitizer half of gputests alone
#   anatomy   ringbench anatomy of the best mode and its variants, the copy modes and the fallback
#             (anatomy.md)
#   windows   ringbench anatomy --window 1,8,64,cap: where a window's messages wait, per mode,
#             size and shortcut switch (windows.md)
#   wintimes  ringbench anatomy --window 1,8,16,32,64,cap with both tables: the kernel's parts of a batch
#             and the host's time per post and per reply, per mode and size (wintimes.md)
#   postmax   ringbench anatomy --window 64,cap with --post-max 0 (a window's room at once), 256, 512
#             and 1024, alternated twice, per mode and size (postmax.md): the default's measurement
#   split     ringbench anatomy --window 1,8,64,cap with --verify-split 0 (every reply on the polling
#             thread), 8K and 32K, alternated twice, per mode and size (split.md)
#   kernelab  a kernel against another: builds a copy of this tree whose kernels/ring_kernel.cu is the file
#             RINGBENCH_AB_KERNEL (another commit's, e.g. from `git show REV:kernels/ring_kernel.cu`) into
#             build-ab/, then alternates the two builds twice: ringbench anatomy of one message (the
#             round trip's parts) and anatomy --window 1,8,64,cap per mode and size (kernelab.md)
#   grid      where a batch spread over the grid waits: anatomy --window 8,64 at 4 KiB with grids of 8,
#             32 and every co-resident block, and at 8 B and 4 KiB with pieces (--post-max) of 2 to 32
#             messages against the default, alternated twice (grid.md)
#   ablation  quick runs at 8 B, 64 B, 4 KiB and windows 1, 8, 64, cap: defaults against each
#             shortcut switch and against the defaults again, compared (ablation.md)
#   early     latency of the pinned modes at 8 B, 64 B and 4 KiB: defaults, early take off, stream
#             ops on, defaults again (early.md); compare each variant against the first
#   quick     one quick run (timed)
#   default   one default run (timed) into OUTDIR/h100-a.h5
#   aa        two default runs back to back (h100-a.h5, h100-b.h5), then compare a b
#   series    12 quick runs of one build, then two with a documented slowdown (the nightly calibration)
#   legseries the series with the full window's leg: quick runs with --window-procs, numbered from
#             RINGBENCH_SERIES_FROM within RINGBENCH_SERIES_SECONDS, then (RINGBENCH_SERIES_SLOW=1) two slowdowns
#   cbbatch   quick runs at 8 B and window 1, alternating --cb-batch 1 and 16, 12 of each: do control-block
#             reads and writes timed 16 at a time track a 10% change (cbbatch.md)
#   user      the README's commands as a user runs them: `make bench`, then `make test`, in a fresh
#             copy of the tree, with the machine as it comes (user-bench, user-test: each half)
#   hostmem   tests/hostmem_probe.c: fresh malloc and cudaHostAlloc buffers against one kept buffer, their
#             first touch, read and write passes, RINGBENCH_HOSTMEM_N times at 64 MiB and 4x that at 1 MiB
#             (hostmem-64M.log, hostmem-1M.log): whether a slow ring is slow host memory
#   causes    the reproducibility experiments of results/RESULTS.md "Reproducibility": GPU warm-up off/on, host
#             threads pinned/not pinned, one-core placement, and five processes of one mode
# Logs and results go to OUTDIR; a short table of what ran ends the output. With RINGBENCH_PACK=1, everything
# in OUTDIR but the results files (*.h5) ends packed into OUTDIR/session.tgz, for a machine that sends
# back only a few files (a default pair then comes back whole: two .h5 files and one archive).
set -uo pipefail
out=$1
shift
mkdir -p "$out"
rb=${RINGBENCH_RB:-build-gpu/bench/ringbench}
top=$(pwd)
summary=()
say() { summary+=("$*"); echo "== $*"; }
timed() { # timed NAME CMD...: runs CMD, logs to OUTDIR/NAME.log, records wall time and status
    local name=$1 t0 st ms
    shift
    t0=$(date +%s%N)
    "$@" >"$out/$name.log" 2>&1
    st=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    say "$name: exit $st, $((ms / 1000)).$((ms % 1000 / 100)) s"
    return $st
}
one_mode=(--modes host=pinned,xfer=zerocopy,launch=noncoop,ctrl=mapped)
window_rows() { # window_rows LABEL RINGBENCH ANATOMY-ARGS...: the rows of anatomy --window's table, each after LABEL
    local label=$1 bin=$2
    shift 2
    "$bin" anatomy "$@" 2>&1 | awk -v h="$label" '/^\| +[0-9]+ \|/ {printf "%s | %s\n", h, $0}'
}

configure_build() { # configure_build DIR LOG: configures and builds the tree in the current folder into DIR (sm_90 only)
    cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release -DRINGBENCH_CUDA_ARCHITECTURES=90 \
        -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" >"$2" 2>&1 &&
        cmake --build "$1" -j "$(nproc)" >>"$2" 2>&1 || { tail -40 "$2"; return 1; }
}

for step in "$@"; do
    case $step in
    build)
        timed build configure_build build-gpu "$out/build-gpu.log" || { cat "$out/build.log"; exit 1; }
        ;;
    gputests | sanitize)
        if [ "$step" = gputests ]; then
            timed gpu_ctest ctest --test-dir build-gpu -L gpu --output-on-failure
            grep -E "tests passed|Failed|Passed|\*\*\*" "$out/gpu_ctest.log" | tail -40
        fi
        t=build-gpu/tests/test_ring_gpu
        for m in pinned/zerocopy/noncoop/mapped malloc/sync/noncoop/device pinned/async/coop/managed pinned/async/coop/mapped; do
            timed "memcheck_${m//\//_}" compute-sanitizer --tool memcheck "$t" "$m" 200 8
            grep "ERROR SUMMARY" "$out/memcheck_${m//\//_}.log" | sed "s|^|$m memcheck: |"
        done
        for m in pinned/zerocopy/noncoop/mapped pinned/async/coop/managed malloc/sync/noncoop/device; do
            timed "racecheck_${m//\//_}" compute-sanitizer --tool racecheck "$t" "$m" 200 8
            grep "RACECHECK SUMMARY\|ERROR SUMMARY" "$out/racecheck_${m//\//_}.log" | sed "s|^|$m racecheck: |"
        done
        for m in pinned/zerocopy/noncoop/device pinned/async/coop/mapped; do
            timed "synccheck_${m//\//_}" compute-sanitizer --tool synccheck "$t" "$m" 200 8
            grep "ERROR SUMMARY" "$out/synccheck_${m//\//_}.log" | sed "s|^|$m synccheck: |"
        done
        # Inputs damaged on purpose: the kernel's bad-input paths (its error count, rk_block_bad).
        for tool in memcheck racecheck; do
            timed "${tool}_badinput" compute-sanitizer --tool "$tool" "$t" --bad-input pinned/zerocopy/coop/mapped 200 8
            grep "RACECHECK SUMMARY\|ERROR SUMMARY" "$out/${tool}_badinput.log" | sed "s|^|bad input $tool: |"
        done
        ;;
    anatomy)
        # Where the time of one round trip goes (ringbench anatomy): the best mode at 8 B, with one
        # block instead of the full grid, the other launch kind, the copy modes, the fallback, 4 KiB.
        {
            for a in "pinned/zerocopy/coop/mapped" "pinned/zerocopy/coop/mapped --no-leader-reply" \
                "pinned/zerocopy/coop/mapped --blocks 1" \
                "pinned/zerocopy/noncoop/mapped" "pinned/zerocopy/coop/mapped --no-early-take" \
                "pinned/async/coop/mapped" "pinned/async/coop/mapped --no-early-take" "pinned/sync/coop/mapped" \
                "malloc/sync/noncoop/device" "pinned/zerocopy/coop/mapped --size 4K"; do
                echo "### ringbench anatomy --mode $a"
                echo
                # shellcheck disable=SC2086
                "$rb" anatomy --warmup 1 --mode $a 2>&1
                echo
            done
        } >"$out/anatomy.md"
        say "anatomy: $(grep -c '^| round trip' "$out/anatomy.md") of 10 runs"
        ;;
    windows)
        # Where a window's messages wait (issue 19): ringbench anatomy --window for the best native
        # mode, the best async mode and the WSL2 fallback at 8 B, 64 B and 4 KiB, with the defaults;
        # at 8 B also with each latency shortcut applied whatever is in flight (--shortcuts-busy,
        # the rule before) and with each shortcut off (windows.md).
        for m in pinned/zerocopy/coop/mapped pinned/async/coop/mapped malloc/sync/noncoop/device; do
            for s in 8 64 4K; do
                v=(defaults)
                [ "$s" = 8 ] && v+=(--shortcuts-busy --no-early-take --no-leader-reply --no-early-replies)
                for x in "${v[@]}"; do
                    sw=()
                    [ "$x" != defaults ] && sw=("$x")
                    echo "### $m, $s, $x"
                    "$rb" anatomy --mode "$m" --size "$s" --window 1,8,64,cap --warmup 0 "${sw[@]}" 2>&1 | sed -n '3,8p'
                    echo
                done
            done
        done >"$out/windows.md" 2>&1
        say "windows: $(grep -c '^###' "$out/windows.md") anatomies"
        cat "$out/windows.md"
        ;;
    wintimes)
        # Where a window's time goes (issue 19): ringbench anatomy --window 1,8,16,32,64,cap, both of its
        # tables (the kernel's parts of a batch and the host's time per post and per reply), per mode
        # and size, at 8 B also without the host's early replies and in pieces of 16 and 32 (wintimes.md).
        for m in pinned/zerocopy/coop/mapped pinned/async/coop/mapped; do
            for s in 8 64 4K; do
                v=(defaults)
                [ "$s" = 8 ] && [ "$m" = pinned/zerocopy/coop/mapped ] && v+=(--no-early-replies "--post-max 16" "--post-max 32")
                for x in "${v[@]}"; do
                    sw=()
                    [ "$x" != defaults ] && read -ra sw <<<"$x"
                    echo "### $m, $s, $x"
                    "$rb" anatomy --mode "$m" --size "$s" --window 1,8,16,32,64,cap --warmup 0 "${sw[@]}" 2>&1 |
                        grep -E '^\|'
                    echo
                done
            done
        done >"$out/wintimes.md" 2>&1
        say "wintimes: $(grep -c '^###' "$out/wintimes.md") anatomies"
        ;;
    postmax)
        # How many messages a throughput trial hands over per post (ring_config.post_max): a whole
        # window at once makes the host and the kernel take turns; pieces let them overlap, each
        # costing an in_tail move and, in copy modes, a copy. Rate per (mode, size, window, piece),
        # two alternated rounds so that a drift of the machine hits every value alike.
        for round in 1 2; do
            for m in pinned/zerocopy/coop/mapped pinned/zerocopy/noncoop/mapped pinned/async/coop/mapped \
                malloc/sync/noncoop/device; do
                for s in 8 64 4K 64K; do
                    for pm in 0 256 512 1024; do
                        window_rows "$round $m $s post-max $pm" "$rb" --mode "$m" --size "$s" --window 1,64,cap --warmup 0 \
                            --seconds 0.3 --post-max "$pm"
                    done
                done
            done
        done >"$out/postmax.md" 2>&1
        say "postmax: $(wc -l <"$out/postmax.md") rows"
        cat "$out/postmax.md"
        ;;
    split)
        # Replies verified together over the host's worker pool (ring_config.verify_split): one thread
        # checking a window's replies one after another while the kernel waits for the next post, or
        # the pool sharing them out. Rate per (mode, size, window, threshold), two alternated rounds.
        for round in 1 2; do
            for m in pinned/zerocopy/coop/mapped pinned/async/coop/mapped malloc/sync/noncoop/device; do
                for s in 8 64 1K 4K 64K; do
                    for vs in 0 8K 32K; do
                        window_rows "$round $m $s split $vs" "$rb" --mode "$m" --size "$s" --window 1,8,64,cap --warmup 0 \
                            --seconds 0.3 --verify-split "$vs"
                    done
                done
            done
        done >"$out/split.md" 2>&1
        say "split: $(wc -l <"$out/split.md") rows"
        ;;
    kernelab)
        # The same tree built twice, differing only in the kernel: A = RINGBENCH_AB_KERNEL (before),
        # B = this tree (after). Rounds alternate A and B so that a drift of the machine hits both.
        ab=/tmp/ringbench-ab
        rm -rf "$ab" && mkdir -p "$ab" && tar --exclude=./build-gpu --exclude=./results/data -cf - . | tar -xf - -C "$ab"
        cp "${RINGBENCH_AB_KERNEL:?the kernel to compare against}" "$ab/kernels/ring_kernel.cu"
        (cd "$ab" && configure_build build-ab "$out/build-ab.log") || exit 1
        for round in 1 2; do
            for side in A B; do
                b=$rb
                [ "$side" = A ] && b=$ab/build-ab/bench/ringbench
                for s in ${RINGBENCH_AB_SIZES:-8 4K 16K 64K}; do
                    "$b" anatomy --mode pinned/zerocopy/coop/mapped --size "$s" --warmup 1 2>&1 |
                        awk -v h="$round $side $s" '/^\| (round trip|send|poll|work|publish|outside|idle|floor)/ {printf "%s %s\n", h, $0}'
                    for m in ${RINGBENCH_AB_MODES:-pinned/zerocopy/coop/mapped pinned/zerocopy/noncoop/mapped pinned/async/coop/mapped malloc/sync/noncoop/device}; do
                        window_rows "$round $side $m $s" "$b" --mode "$m" --size "$s" --window 1,8,64,cap --warmup 0 --seconds 0.3
                    done
                done
            done
        done >"$out/kernelab.md" 2>&1
        say "kernelab: $(wc -l <"$out/kernelab.md") rows"
        ;;
    grid)
        # Two questions about windows between 1 and the full ring, alternated twice. Does a batch
        # spread over the grid pay for the blocks that have no message (the fan-out, the grid-wide
        # barrier)? Then a small grid is faster. Does posting a window in pieces smaller than the
        # window let the host and the kernel overlap (kernel on one piece, host on the other)?
        for round in 1 2; do
            for m in pinned/zerocopy/coop/mapped pinned/zerocopy/noncoop/mapped; do
                for bl in 8 32 0; do
                    window_rows "$round $m 4K blocks $bl" "$rb" --mode "$m" --size 4K --window 8,64 --warmup 0 --seconds 0.3 --blocks "$bl"
                done
                for s in 8 4K; do
                    for pm in 2 4 8 16 32 512; do
                        window_rows "$round $m $s post-max $pm" "$rb" --mode "$m" --size "$s" --window 8,64 --warmup 0 --seconds 0.3 --post-max "$pm"
                    done
                done
            done
        done >"$out/grid.md" 2>&1
        say "grid: $(wc -l <"$out/grid.md") rows"
        ;;
    ablation)
        # The guard of the shortcuts (issue 19): quick runs at 8 B, 64 B, 4 KiB and windows 1, 8,
        # 64 and cap, every mode: the defaults, then each switch, then the defaults again; compare
        # each against both defaults runs. A switch that beats the defaults shows as "faster" pairs
        # (interval clear of 0, >= 5 %). Twice the first defaults run of a call was the slowest run in
        # it (0fa07f8, 1c24dfc), so the pairs a switch wins against the first run alone are mostly the
        # machine's drift; it counts as faster only where it beats the defaults before it and after it.
        # The second defaults run against the first says how many pairs that drift makes.
        a=(--preset quick --sizes 8,64,4K --window 1,8,64,cap)
        switches=(no-early-take no-leader-reply no-early-replies shortcuts-busy stream-ops post-max-0 verify-split-0 verify-first refill-on-tail)
        timed abl_defaults "$rb" run "${a[@]}" -o "$out/abl-defaults.h5" --force
        for x in "${switches[@]}" defaults; do
            f=$out/abl-$x.h5
            [ "$x" = defaults ] && f=$out/abl-defaults2.h5
            sw=()
            [ "$x" != defaults ] && sw=("--$x")
            [ "$x" = post-max-0 ] && sw=(--post-max 0) # a zero-copy window posted at once, the rule before
            [ "$x" = verify-split-0 ] && sw=(--verify-split 0) # every reply checked by the polling thread
            timed "abl_$x" "$rb" run "${a[@]}" "${sw[@]}" -o "$f" --force
            "$rb" compare "$out/abl-defaults.h5" "$f" -o "$out/cmp-$x" --no-render >/dev/null 2>&1
        done
        for x in "${switches[@]}"; do
            "$rb" compare "$out/abl-defaults2.h5" "$out/abl-$x.h5" -o "$out/cmp2-$x" --no-render >/dev/null 2>&1
        done
        {
            echo "| switch | pairs | faster than the first defaults run (>= 5 %, interval clear of 0) | slower | faster than both defaults runs | slower than both | pairs faster than both (family mode size window: against the first / the second) |"
            echo "| --- | --- | --- | --- | --- | --- | --- |"
            for x in "${switches[@]}" defaults; do
                second=$out/cmp2-$x/compare_pairs.dat
                [ "$x" = defaults ] && second=/dev/null
                # compare_pairs.dat: family mode size ... overhead(6) ... verdict(9) window(10)
                awk -v x="$x" -v second="$second" 'FILENAME == second { if (!/^#/) v[$1 " " $2 " " $3 " " $10] = $9 " " $6; next }
                    !/^#/ && ($1 == "latency" || $1 == "throughput") {
                        n++; split(v[$1 " " $2 " " $3 " " $10], b, " ")
                        if ($9 == "faster") f++
                        if ($9 == "slower") s++
                        if ($9 == "faster" && b[1] == "faster") { fb++; l = l sprintf("%s %s %s w%s %+.0f / %+.0f%%; ", $1, $2, $3, $10, 100 * $6, 100 * b[2]) }
                        if ($9 == "slower" && b[1] == "slower") sb++ }
                    END { both = x == "defaults" ? "-" : fb + 0; sboth = x == "defaults" ? "-" : sb + 0
                          printf "| %s | %d | %d | %d | %s | %s | %s |\n", x == "defaults" ? "defaults again" : "--" x, n, f, s, both, sboth, l }' \
                    "$second" "$out/cmp-$x/compare_pairs.dat"
            done
        } >"$out/ablation.md"
        cat "$out/ablation.md"
        ;;
    early)
        # What the early take and the stream ops do: latency of every pinned mode at 8 B, 64 B and
        # 4 KiB with the defaults (early take on, stream ops off; twice: before and after), without
        # the early take, and with stream ops; then compare each variant against the first default
        # run (default = BASE).
        e=(--preset quick --sizes 8,64,4K --modes host=pinned --window 1)
        timed early_on1 "$rb" run "${e[@]}" -o "$out/early-on1.h5" --force
        timed early_off "$rb" run "${e[@]}" --no-early-take -o "$out/early-off.h5" --force
        timed ops_on "$rb" run "${e[@]}" --stream-ops -o "$out/early-opson.h5" --force
        timed early_on2 "$rb" run "${e[@]}" -o "$out/early-on2.h5" --force
        timed early_cmp "$rb" compare "$out/early-on1.h5" "$out/early-off.h5" -o "$out/early-compare" --no-render
        timed ops_cmp "$rb" compare "$out/early-on1.h5" "$out/early-opson.h5" -o "$out/ops-compare" --no-render
        python3 - "$out" <<'PY' >"$out/early.md" 2>&1
import sys, h5py
out = sys.argv[1]
runs = ("on1", "off", "opson", "on2")
rows = {}
for name in runs:
    c = h5py.File(f"{out}/early-{name}.h5", "r")["/cells"][...]
    for r in c[c["status"] == b"ok"]:
        fam = r["family"].decode()
        if fam == "latency" or fam.startswith("base_"):
            key = (fam, "/".join(r[a].decode() for a in ("host_mem", "xfer", "launch", "ctrl")), int(r["size_bytes"]))
            rows.setdefault(key, {})[name] = f"{r['p50']:.2f} [{r['ci_lo']:.2f}, {r['ci_hi']:.2f}]"
print("| family | mode | size | defaults | early take off | stream ops on | defaults again |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for k in sorted(rows):
    print(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(rows[k].get(n, "") for n in runs) + " |")
PY
        cat "$out/early.md"
        ;;
    quick)
        timed quick "$rb" run --preset quick -o "$out/h100-quick.h5" --force
        tail -25 "$out/quick.log"
        ;;
    default)
        timed default_a "$rb" run --preset default -o "$out/h100-a.h5" --force
        tail -25 "$out/default_a.log"
        ;;
    aa)
        timed default_a "$rb" run --preset default -o "$out/h100-a.h5" --force
        timed default_b "$rb" run --preset default -o "$out/h100-b.h5" --force
        timed compare "$rb" compare "$out/h100-a.h5" "$out/h100-b.h5" -o "$out/aa-compare" --no-render
        tail -22 "$out/default_b.log"
        python3 plots/variance.py "$out/h100-a.h5" "$out/h100-b.h5" >"$out/aa-variance.md" 2>&1
        tail -30 "$out/aa-variance.md"
        ;;
    hostmem)
        cuda=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
        mkdir -p build-gpu
        cc -O2 -std=c11 -Wall -Wextra tests/hostmem_probe.c -I"$cuda/include" -L"$cuda/lib64" \
            -Wl,-rpath,"$cuda/lib64" -lcudart -o build-gpu/hostmem_probe >"$out/hostmem-build.log" 2>&1 ||
            { cat "$out/hostmem-build.log"; exit 1; }
        n=${RINGBENCH_HOSTMEM_N:-100}
        timed hostmem-64M build-gpu/hostmem_probe "$n" 64
        timed hostmem-1M build-gpu/hostmem_probe $((4 * n)) 1
        for f in 64M 1M; do tail -n 7 "$out/hostmem-$f.log"; done
        ;;
    causes)
        q=(--preset quick --trials 5)
        timed c_warm "$rb" run "${q[@]}" -o "$out/c-warm.h5" --force
        timed c_nowarm "$rb" run "${q[@]}" --warmup 0 -o "$out/c-nowarm.h5" --force
        timed c_nopin "$rb" run "${q[@]}" --no-pin -o "$out/c-nopin.h5" --force
        timed c_onecore taskset -c 3 "$rb" run "${q[@]}" "${one_mode[@]}" -o "$out/c-onecore.h5" --force
        for i in 1 2 3 4 5; do
            timed "c_proc$i" "$rb" run --preset quick --trials 5 "${one_mode[@]}" -o "$out/c-proc$i.h5" --force
        done
        for f in warm nowarm nopin onecore proc1; do
            python3 plots/variance.py "$out/c-$f.h5" >"$out/c-$f-variance.md" 2>&1
        done
        python3 plots/variance.py "$out/c-proc1.h5" "$out/c-proc2.h5" >"$out/c-proc12-variance.md" 2>&1
        python3 - "$out" <<'PY' >"$out/causes.md" 2>&1
import sys, h5py, numpy as np
out = sys.argv[1]
def cells(p):
    f = h5py.File(p, "r")
    return f, f["/cells"][...], f["/trials"][...]
print("## Clock ramp: the SM clock at each trial's start, warm-up off vs on")
for name in ("nowarm", "warm"):
    f, c, t = cells(f"{out}/c-{name}.h5")
    sm = t["sm_mhz_start"][:40]
    print(name, "first 40 trials' SM MHz:", " ".join(f"{x:.0f}" for x in sm),
          "| warmup_s", f["/provenance"].attrs.get("warmup_s"), "reached", f["/provenance"].attrs.get("warmup_sm_mhz"))
    lat = c[(c["family"] == b"latency") & (c["status"] == b"ok")]
    print(name, "median trial CV of latency:", np.nanmedian(lat["trial_cv"]))
print("## Placement: pinned vs not, and one core")
for name in ("warm", "nopin", "onecore"):
    f, c, t = cells(f"{out}/c-{name}.h5")
    lat = c[(c["family"] == b"latency") & (c["status"] == b"ok")]
    mig = (t["cpu_start"] != t["cpu_end"]).mean()
    print(name, "median latency trial CV", np.nanmedian(lat["trial_cv"]), "share of trials that migrated", mig,
          "warning:", f["/provenance"].attrs.get("placement_warning"))
    for r in lat[(lat["host_mem"] == b"pinned") & (lat["xfer"] == b"zerocopy") & (lat["launch"] == b"noncoop") & (lat["ctrl"] == b"mapped")]:
        print("   ", name, int(r["size_bytes"]), "B latency p50", r["p50"], "cv", r["trial_cv"])
print("## Five processes of one mode: per-process p50 and its interval")
for i in range(1, 6):
    f, c, t = cells(f"{out}/c-proc{i}.h5")
    for r in c[(c["status"] == b"ok") & np.isin(c["family"], [b"latency", b"cb_read", b"base_launch"])]:
        print(f"proc{i}", r["family"].decode(), int(r["size_bytes"]), f"{r['p50']:.3f} [{r['ci_lo']:.3f}, {r['ci_hi']:.3f}] cv {r['trial_cv']:.3f}",
              "trial p50s", " ".join(f"{x:.3f}" for x in t[(t["cell_id"] == r["cell_id"]) & (t["family"] == r["family"])]["p50"]))
PY
        cat "$out/causes.md" | head -60
        ;;
    series)
        # The nightly calibration series (results/RESULTS.md "Nightly tracking"): N quick runs of one build, minutes
        # apart as a nightly job would see them (N = RINGBENCH_SERIES_N, default 12), then the same
        # preset with two documented slowdowns: --no-leader-reply (lone small messages go behind two
        # block barriers) and --no-early-take. Tracked in order afterwards, anywhere (track needs no GPU).
        mkdir -p "$out/series"
        for i in $(seq -w 1 "${RINGBENCH_SERIES_N:-12}"); do
            timed "series_$i" "$rb" run --preset quick --quiet -o "$out/series/q$i.h5" --force
        done
        timed series_noleader "$rb" run --preset quick --quiet --no-leader-reply -o "$out/series/slow-noleader.h5" --force
        timed series_noearly "$rb" run --preset quick --quiet --no-early-take -o "$out/series/slow-noearly.h5" --force
        (cd "$out/series" && tar -czf "$out/series-a.tgz" q0[1-6].h5 && tar -czf "$out/series-b.tgz" q0[7-9].h5 q1*.h5 &&
            tar -czf "$out/series-slow.tgz" slow-*.h5 && rm -f ./*.h5)
        ls -la "$out"
        ;;
    legseries)
        # The nightly calibration series with the full window's leg (run --window-procs, issue 18): quick runs
        # of one build with --window-procs K (RINGBENCH_WINDOW_PROCS, default 24, as `make nightly`), numbered
        # from RINGBENCH_SERIES_FROM (default 1) into OUTDIR/series/qNN.h5, one after another until
        # RINGBENCH_SERIES_SECONDS (default 450) would be passed (a night takes ~90 s on an H100), so that one
        # series spans several calls on one warm machine; with RINGBENCH_SERIES_SLOW=1, then the two documented
        # slowdowns (slow-nosplit: --verify-split 0, every reply verified on the polling thread, which slows
        # the full window; slow-noleader: --no-leader-reply). The files are also tarred into
        # OUTDIR/legseries-FROM.tgz; bench/nightly/calibrate.sh tracks them in order anywhere. With
        # RINGBENCH_LEG_KEEP=1 each night also keeps its processes' own files (run --window-procs-keep) and
        # the tarball gets NAME-procs.csv: every cell of every process (`ringbench export`, a first column
        # `proc`), the references each measured in the same seconds as its full window.
        mkdir -p "$out/series"
        k=${RINGBENCH_WINDOW_PROCS:-24} i=${RINGBENCH_SERIES_FROM:-1} budget=${RINGBENCH_SERIES_SECONDS:-450}
        t0=$(date +%s) last=0 made=()
        night() { # night NAME ARGS...: one quick run with the leg, timed
            local name=$1 s
            shift
            s=$(date +%s)
            local keep=()
            [ "${RINGBENCH_LEG_KEEP:-0}" = 1 ] && keep=(--window-procs-keep "$out/series/$name-procs")
            timed "legseries_$name" "$rb" run --preset quick --window-procs "$k" "${keep[@]}" --quiet \
                -o "$out/series/$name.h5" --force "$@"
            last=$(($(date +%s) - s))
            made+=("$name.h5")
            if [ ${#keep[@]} -gt 0 ]; then
                local f head=1
                for f in "$out/series/$name-procs"/p*.h5; do
                    "$rb" export "$f" --format csv 2>/dev/null |
                        awk -v p="$(basename "$f" .h5)" -v h=$head 'NR == 1 { if (h) print "proc," $0; next } { print p "," $0 }'
                    head=0
                done >"$out/series/$name-procs.csv"
                rm -rf "$out/series/$name-procs"
                made+=("$name-procs.csv")
            fi
        }
        while [ $(($(date +%s) - t0 + (last > 0 ? last : 100))) -le "$budget" ]; do
            night "q$(printf %02d "$i")"
            i=$((i + 1))
        done
        if [ "${RINGBENCH_SERIES_SLOW:-0}" = 1 ]; then
            night slow-nosplit --verify-split 0
            night slow-noleader --no-leader-reply
        fi
        (cd "$out/series" && tar -czf "$out/legseries-${RINGBENCH_SERIES_FROM:-1}.tgz" "${made[@]}")
        ls -la "$out/series"
        ;;
    cbbatch)
        # Control-block reads and writes timed one per sample are ~75% the clock pair that times them,
        # whose cost moves from round to round (plots/noise.py decompose): timed 16 at a time, is their
        # run-to-run noise small enough to catch a 10% change? N pairs (RINGBENCH_SERIES_N, default 12),
        # alternating so that a drift of the machine hits both alike; 8 B and window 1 only, for time.
        # Each half is then a nightly series: plots/noise.py and bench/nightly/calibrate.sh read it.
        mkdir -p "$out/cbbatch/k1" "$out/cbbatch/k16"
        for i in $(seq -w 1 "${RINGBENCH_SERIES_N:-12}"); do
            for k in 1 16; do
                timed "cbbatch_${k}_$i" "$rb" run --preset quick --quiet --sizes 8 --window 1 --cb-batch "$k" \
                    -o "$out/cbbatch/k$k/q$i.h5" --force
            done
        done
        {
            for k in 1 16; do
                echo "## --cb-batch $k"
                python3 plots/noise.py decompose "$out/cbbatch/k$k"/q*.h5
                python3 plots/noise.py series "$out/cbbatch/k$k"/q*.h5
                bench/nightly/calibrate.sh "$rb" "$out/cbbatch/k$k" "$out/cbbatch/cal-k$k" >/dev/null 2>&1
                grep -A7 "^headline" "$(ls "$out/cbbatch/cal-k$k"/track-q*.txt | tail -1)"
            done
        } >"$out/cbbatch.md" 2>&1
        cat "$out/cbbatch.md"
        ;;
    user | user-bench | user-test)
        # The README's two commands as a user runs them, on the machine as it comes (cmake from
        # wherever it is, no network, no gnuplot): a fresh copy of the tree without build outputs,
        # `make bench` (the default sweep and its report), then `make test`. user-bench and
        # user-test run the halves, for a machine that allows only so long per command; the copy
        # (and its build) is kept between them.
        u=${RINGBENCH_USER_COPY:-/tmp/ringbench-user}
        if [ "$step" != user-test ] || [ ! -d "$u" ]; then
            rm -rf "$u" && mkdir -p "$u" &&
                tar --exclude=./build --exclude='./build-*' --exclude=./results/runs -cf - . | tar -xf - -C "$u"
        fi
        if [ "$step" != user-test ]; then
            cd "$u" && timed user_bench make bench
            cd "$top" || exit 1
            tail -45 "$out/user_bench.log"
            tar -C "$u/results" -czf "$out/user-runs.tgz" runs 2>/dev/null
        fi
        if [ "$step" != user-bench ]; then
            cd "$u" && timed user_test make test
            cd "$top" || exit 1
            tail -25 "$out/user_test.log"
        fi
        ;;
    *)
        echo "gpu_session.sh: unknown step '$step'"
        exit 2
        ;;
    esac
done
printf '%s\n' "${summary[@]}"
if [ "${RINGBENCH_PACK:-0}" = 1 ]; then
    printf '%s\n' "${summary[@]}" >"$out/summary.txt"
    list=$(mktemp)
    (cd "$out" && find . -mindepth 1 -maxdepth 1 ! -name '*.h5' ! -name session.tgz -printf '%P\n' >"$list" &&
        tar -czf session.tgz -T "$list" && xargs -d '\n' rm -rf <"$list") ||
        echo "gpu_session.sh: packing $out failed; its files are left as they are"
    rm -f "$list"
fi
