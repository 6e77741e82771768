#!/usr/bin/env bash
# fuzz_seeds.sh - the seed corpus of the fuzz targets (tests/fuzz.cmake): a tiny quick run on the CPU
# reference backend (the real writer, schema of this build) and the compare_pairs.dat that `compare`
# writes for it. (The schema-1 fixture, tests/fixtures/h100-schema1.h5, is 2.2 MB: too large a seed, since
# libFuzzer's inputs grow to the largest one.)
#
#   fuzz_seeds.sh RINGBENCH OUTDIR
set -u
rb=$1 out=$2
rm -rf "$out" && mkdir -p "$out" || exit 1
"$rb" run --backend cpu --preset quick --quiet --timeout 60 --sizes 8 --trials 2 \
    --modes host=pinned,xfer=zerocopy,launch=noncoop,ctrl=mapped -o "$out/run.h5" >/dev/null 2>"$out.err" \
    || { echo "FAIL: the seed run failed: $(tail -3 "$out.err")"; exit 1; }
"$rb" compare "$out/run.h5" "$out/run.h5" -o "$out.compare" --no-render --reps 100 >/dev/null 2>>"$out.err" \
    && cp "$out.compare/compare_pairs.dat" "$out/compare_pairs.dat" \
    || { echo "FAIL: compare of the seed run failed: $(tail -3 "$out.err")"; exit 1; }
ls -l "$out"
