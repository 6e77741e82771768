#!/usr/bin/env bash
# cli_test.sh - end-to-end tests of the ringbench command line on the CPU reference backend.
#
#   cli_test.sh RINGBENCH WORKDIR output|quick|interrupt|placement|anatomy|badinput|sizes|procs|grammar [PYTHON_WITH_H5PY] [SCHEMA_H]
#
# output     where a run without -o writes: results/runs/ in the source tree (ignored by git)
# quick      a quick run, its summary the headline figures without nan, read back by h5dump and h5py
#            where installed, then a report
# interrupt  SIGINT during a run leaves a valid, readable file holding the completed trials and the
#            rows of their cells, marked incomplete, and exit status 1
# placement  a one-core CPU list: a loud warning, and the provenance records it
# anatomy    `ringbench anatomy` on the CPU backend: every part measured, every round trip traced, no nan
# badinput   every documented error path: one line on stderr and the documented exit status
# sizes      a run of 44 sizes: report.md's slow-trial table has a row for each (it once stopped at 40)
# procs      run --window-procs: the leg's cells and trials (one per process, the median over them), a
#            leg that cannot start says why in failed rows, an interrupted leg keeps its finished processes,
#            --window-procs-keep leaves each process's own file and log
# grammar    every command takes the same option grammar: --name=value as well as --name value, --
#            ends the options, -h/--help prints help (exit 0), an unknown option is one line and exit 2
set -u
rb=$1 work=$2 what=$3 py=${4:-} schema=${5:-}
rm -rf "$work" && mkdir -p "$work" || exit 1
# shellcheck source=cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# CI machines have two cores and run tests side by side: a generous wait bound keeps a busy machine
# from failing a cell of the CPU backend.
tiny=(--backend cpu --preset quick --quiet --timeout 60 --sizes 8 --modes host=pinned,xfer=zerocopy,launch=noncoop,ctrl=mapped)

case $what in
output)
    # A run without -o from the source tree (a results/ folder here) lands in results/runs/, which the
    # checkout's git ignores, so a user's default run never shows up in `git status`; elsewhere, in
    # the current directory.
    mkdir -p "$work/tree/results" "$work/elsewhere"
    (cd "$work/tree" && "$rb" run "${tiny[@]}" >/dev/null 2>"$work/err") && ok || bad "run in the tree: $(tail -2 "$work/err")"
    n=$(find "$work/tree/results/runs" -name '*.h5' 2>/dev/null | wc -l)
    [ "$n" -eq 1 ] && ok || bad "a default run in the tree did not land in results/runs/: $(find "$work/tree")"
    (cd "$work/elsewhere" && "$rb" run "${tiny[@]}" >/dev/null 2>"$work/err") && ok || bad "run elsewhere: $(tail -2 "$work/err")"
    [ "$(find "$work/elsewhere" -maxdepth 1 -name '*.h5' | wc -l)" -eq 1 ] && ok || bad "a default run elsewhere: $(find "$work/elsewhere")"
    src=$(cd "$(dirname "$0")/.." && pwd)
    if command -v git >/dev/null && git -C "$src" rev-parse --show-toplevel 2>/dev/null | grep -qx "$src"; then
        git -C "$src" check-ignore -q "results/runs/host-20261123T000000Z.h5" && \
            git -C "$src" check-ignore -q "results/runs/host-20261123T000000Z-report/report.md" && ok \
            || bad "git does not ignore results/runs/"
    else
        echo "note: $src is not a git checkout: .gitignore not checked"
    fi
    ;;
quick)
    "$rb" run --backend cpu --preset quick --sizes 8,4K --trials 2 --window 1,cap --quiet --timeout 60 \
        -o "$work/q.h5" >"$work/out" 2>"$work/err"
    st=$?
    [ $st -eq 0 ] && ok || bad "quick run exit $st: $(tail -3 "$work/err")"
    grep -q "CPU REFERENCE" "$work/err" && ok || bad "no CPU-backend notice on stderr"
    # The summary is report.md's first screen: the headline figures, a reason where one is missing, no nan
    # (two trials: a spread each; the 4 KiB cells are the largest size).
    grep -q "^headline figure  *native  *WSL2 fallback  *fallback / native \[95 % interval\]" "$work/out" &&
        grep -q "^round trip, 4 KiB " "$work/out" && grep -q "^rows: [0-9]* ok" "$work/out" && ok ||
        bad "no headline figures on stdout: $(cat "$work/out")"
    ! grep -iwq nan "$work/out" && ok || bad "nan in the run's summary: $(grep -iw nan "$work/out")"
    # One trial a cell, one mode: no spread to give, and every missing figure says why
    "$rb" run --backend cpu --preset quick --sizes 8 --trials 1 --modes host=pinned,xfer=zerocopy --quiet \
        --timeout 60 -o "$work/one.h5" >"$work/out1" 2>/dev/null
    grep -q "^round trip, 8 B  *not measured \[1\]" "$work/out1" &&
        grep -q "^\[1\] pinned/async/coop/mapped: not in this file" "$work/out1" && ! grep -iwq nan "$work/out1" &&
        ok || bad "a summary with one trial and missing figures: $(cat "$work/out1")"
    [ -f "$work/q.h5" ] && [ ! -e "$work/q.h5.partial" ] && ok || bad "results file not moved into place"
    if command -v h5dump >/dev/null; then
        h5dump -a /complete "$work/q.h5" | grep -q "(0): 1" && ok || bad "h5dump: complete != 1"
        h5dump -a /provenance/backend "$work/q.h5" | grep -q '"cpu"' && ok || bad "h5dump: backend != cpu"
        h5dump -a /provenance/cb_batch "$work/q.h5" | grep -q "(0): 16$" && ok || bad "h5dump: cb_batch != 16"
        h5dump -a /provenance/post_max "$work/q.h5" | grep -q "(0): 512$" && ok || bad "h5dump: post_max != 512"
        h5dump -a /provenance/verify_split "$work/q.h5" | grep -q "(0): 32768$" && ok || bad "h5dump: verify_split != 32768"
        h5dump -a /provenance/refill_first "$work/q.h5" | grep -q '"on"' && ok || bad "h5dump: refill_first != on"
        h5dump -a /provenance/refill_headers "$work/q.h5" | grep -q '"on"' && ok || bad "h5dump: refill_headers != on"
    fi
    # Control-block reads and writes timed 8 at a time: the run says so in its provenance, and the
    # cells are measured as before (a sample is the time of 8 operations / 8). The same run verifies a
    # window's replies before posting their refill (--verify-first) and counts a reply answered only on
    # out_tail (--refill-on-tail), and says that too.
    "$rb" run "${tiny[@]}" --cb-batch 8 --verify-first --refill-on-tail -o "$work/cb8.h5" >/dev/null 2>"$work/err" && ok ||
        bad "--cb-batch 8 --verify-first --refill-on-tail: $(tail -2 "$work/err")"
    if command -v h5dump >/dev/null; then
        h5dump -a /provenance/cb_batch "$work/cb8.h5" | grep -q "(0): 8$" && ok || bad "h5dump: cb_batch != 8"
        h5dump -a /provenance/refill_first "$work/cb8.h5" | grep -q '"off"' && ok || bad "h5dump: --verify-first did not record refill_first off"
        h5dump -a /provenance/refill_headers "$work/cb8.h5" | grep -q '"off"' && ok || bad "h5dump: --refill-on-tail did not record refill_headers off"
    fi
    if [ -n "$py" ]; then
        "$py" "$(dirname "$0")/read_results.py" "$work/q.h5" "$schema" >"$work/py" 2>&1 && ok || bad "h5py: $(tail -3 "$work/py")"
        "$py" - "$work/q.h5" <<'PY' && ok || bad "h5py content check"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
c = f["/cells"][:]
fams = {r["family"].decode() for r in c}
need = {"latency", "throughput", "cb_read", "cb_write", "cb_handshake", "lc_launch", "base_floor", "harness_overhead"}
assert need <= fams, need - fams
for r in c:
    assert r["backend"] == b"cpu"
    if r["status"] == b"ok" and r["family"] in (b"latency", b"throughput"):
        assert r["lost"] == r["duplicated"] == r["corrupted"] == 0 and r["messages"] > 0, r
        assert r["n"] > 0 and r["p50"] > 0
    if r["status"] == b"invalid":
        assert r["host_mem"] == b"malloc" and (r["ctrl"] == b"mapped" or r["xfer"] == b"zerocopy")
import numpy as np
valid = {(r["host_mem"], r["xfer"], r["launch"], r["ctrl"]) for r in c if r["family"] == b"latency" and r["status"] == b"ok"}
assert len(valid) == 26, len(valid)
# The current schema; every ok row has its two trials, each with its own samples and the polling CPU
# (schema 3); schema 4 adds the part's own time and the machine's load around each trial.
assert f.attrs["schema_version"] == 4
# Schema 4: the two-modes columns, filled by the writer: a rate is never split; two modes are ordered.
import math
for r in c:
    assert r["bimodal"] in (0, 1), r
    if r["bimodal"] == 1:
        assert r["unit"] == b"us" and 0 < r["mode_fast"] <= r["mode_slow"] and 0 <= r["slow_share"] <= 1, r
    else:
        assert math.isnan(r["mode_fast"]) and math.isnan(r["mode_slow"]) and math.isnan(r["slow_share"]), r
t = f["/trials"][:]
for r in c:
    if r["status"] != b"ok":
        continue
    mine = t[t["cell_id"] == r["cell_id"]]
    assert r["trials"] == 2 and len(mine) == 2, (r, len(mine))
    assert sorted(mine["trial"]) == [0, 1]
    assert r["ci_method"] == b"trials"
    assert sum(mine["n"]) == r["n"], (sum(mine["n"]), r["n"])
    for m in mine:
        assert m["cpu_start"] >= 0
        assert m["part_s"] > 0 and m["part_s"] <= m["elapsed_s"], (m["part_s"], m["elapsed_s"])
        assert np.isnan(m["payload_s"])  # no message of 64 KiB or more in this run
        assert m["steal_ms"] >= 0 and m["irq_ms"] >= 0 and m["minflt"] >= 0 and m["proc_ctx_switches"] >= 0, m
        assert m["sample_offset"] + m["n"] <= f["/trial_samples"].shape[0]
# The samples checksum as docs/schema.md defines it (FNV-1a 64 over the little-endian float64 bytes),
# recomputed here independently of the C code, on the first trials.
def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h
import numpy as np
s = f["/trial_samples"][:]
for m in t[:12]:
    mine = np.asarray(s[m["sample_offset"]:m["sample_offset"] + m["n"]], dtype="<f8")
    assert fnv1a64(mine.tobytes()) == int(m["samples_check"]), m["trial_id"]
assert f.attrs["cells_rows"] == len(c) and f.attrs["trials_rows"] == len(t)
# Throughput at windows 1 and the capacity; latency at window 1.
wins = {int(r["window"]) for r in c if r["family"] == b"throughput" and r["status"] == b"ok"}
assert 1 in wins and len(wins) >= 2, wins
assert all(r["window"] == 1 for r in c if r["family"] == b"latency")
PY
    fi
    "$rb" report "$work/q.h5" -o "$work/rep" >"$work/out" 2>"$work/err"
    st=$?
    [ $st -eq 0 ] && ok || bad "report exit $st: $(tail -3 "$work/err")"
    grep -q "CPU REFERENCE BACKEND" "$work/rep/report.md" && ok || bad "report.md does not label the CPU backend"
    # CPU numbers say nothing about WSL2: the report shows the comparison but judges nothing against the claim.
    grep -q "No verdict: these are CPU reference backend numbers" "$work/rep/report.md" && ok \
        || bad "report.md of a CPU run does not say it draws no verdict"
    grep -q "Verdict on the claim\|against the claimed 10–30%: \*\*\|| inside |\|| below |\|| above |" "$work/rep/report.md" \
        && bad "report.md of a CPU run judges the claim" || ok
    grep -q "### (ii) End-to-end latency" "$work/rep/report.md" && grep -q "### (iii) End-to-end throughput" \
        "$work/rep/report.md" && grep -q "### (iv) Which single axis" "$work/rep/report.md" && ok \
        || bad "report.md's verdict sections are not numbered (i)-(iv)"
    # An intact file of this build: nothing marked damaged, no warning from the reader (issue 22). A
    # machine without gnuplot gets a warning about the plots, which is not the reader's.
    ! grep WARNING "$work/err" | grep -qv "gnuplot not found" && ! grep -q "DAMAGED" "$work/rep/report.md" && ok \
        || bad "the reader flagged an intact file: $(grep WARNING "$work/err" | grep -v "gnuplot not found" | head -3)"
    # The answer and the headline export (issue 52): the same figures, on stdout, nothing written.
    "$rb" report "$work/q.h5" --answer >"$work/answer" 2>"$work/err" && grep -q "^| control-block read |" "$work/answer" \
        && ok || bad "report --answer: $(tail -2 "$work/err")"
    "$rb" export "$work/q.h5" --headline --format csv >"$work/hl.csv" 2>"$work/err" && [ "$(wc -l <"$work/hl.csv")" -eq 17 ] \
        && ok || bad "export --headline --format csv: $(wc -l <"$work/hl.csv") lines, $(tail -1 "$work/err")"
    "$rb" export "$work/q.h5" --headline --format json >/dev/null 2>"$work/err"; st=$?
    [ $st -eq 2 ] && grep -q "bmf or csv" "$work/err" && ok || bad "export --headline --format json: exit $st"
    ;;
procs)
    # The leg after a small sweep: four throughput_procs cells at the smallest size, each with one trial
    # per process whose one sample is that process's best trial, the row's p50 their median.
    leg=(--backend cpu --preset quick --quiet --timeout 60 --sizes 8,64 --window 1,cap --trials 1
        --modes host=pinned,xfer=zerocopy,launch=noncoop,ctrl=mapped)
    mkdir -p "$work/tmp"
    TMPDIR=$work/tmp "$rb" run "${leg[@]}" --window-procs 3 -o "$work/p.h5" >"$work/out" 2>"$work/err"
    st=$?
    [ $st -eq 0 ] && ok || bad "run --window-procs 3 exit $st: $(tail -3 "$work/err")"
    [ -z "$(ls -A "$work/tmp")" ] && ok || bad "the leg left files behind: $(ls -R "$work/tmp")"
    if [ -n "$py" ]; then
        "$py" -c "
import h5py, numpy as np
f = h5py.File('$work/p.h5', 'r')
c, t = f['/cells'][:], f['/trials'][:]
assert int(f['provenance'].attrs['window_procs']) == 3
legs = [r for r in c if r['family'] == b'throughput_procs']
assert len(legs) == 4, len(legs)
own = [r for r in c if r['family'] == b'throughput' and r['size_bytes'] == 8 and r['window'] > 1]
assert own and all(r['window'] == own[0]['window'] for r in legs), 'the leg is not at the full window'
last = max(x['seq'] for x in t if not x['family'].endswith(b'_procs'))
for r in legs:
    assert r['status'] == b'ok' and r['size_bytes'] == 8 and r['xfer'] == b'zerocopy', r
    assert r['trials'] == 3 and r['n'] == 3 and r['ci_method'] == b'trials', r
    mine = sorted((x for x in t if x['cell_id'] == r['cell_id'] and x['family'] == b'throughput_procs'), key=lambda x: x['trial'])
    assert [x['trial'] for x in mine] == [0, 1, 2] and all(x['n'] == 1 and x['seq'] > last for x in mine), mine
    v = [x['p50'] for x in mine]
    # A rate's trial medians are taken as reciprocals (time per message) and inverted back, so they
    # match the trials' own figures to rounding, not bit for bit (1 / (1 / x) != x for about 12 % of x).
    assert abs(r['p50'] - np.median(v)) <= 1e-9 * r['p50'], (r['p50'], v)
    assert abs(r['trial_p50_max'] - max(v)) <= 1e-9 * max(v), (r['trial_p50_max'], v)
    assert all(x['messages'] > 0 and x['lost'] == x['duplicated'] == x['corrupted'] == 0 for x in mine)
    assert mine[0]['t_start_s'] < mine[1]['t_start_s'] < mine[2]['t_start_s']
    assert r['lost'] == r['duplicated'] == r['corrupted'] == 0 and r['messages'] == sum(x['messages'] for x in mine)
# Each process's own memcpy at that size, one trial per process (its median trial): pageable measured on
# the CPU backend, pinned unsupported there, saying why.
refs = {r['family']: r for r in c if r['family'].endswith(b'_procs') and r['family'] != b'throughput_procs'}
assert set(refs) == {b'memcpy_h2d_pinned_procs', b'memcpy_h2d_pageable_procs'}, set(refs)
pg, pn = refs[b'memcpy_h2d_pageable_procs'], refs[b'memcpy_h2d_pinned_procs']
assert pg['status'] == b'ok' and pg['size_bytes'] == 8 and pg['window'] == 0 and pg['trials'] == 3, pg
assert pg['host_mem'] == b'-' and pg['unit'] == b'GB/s', pg
def trials_of(r):
    return sorted((x for x in t if x['cell_id'] == r['cell_id'] and x['family'] == r['family']), key=lambda x: x['trial'])
mine = trials_of(pg)
assert [x['trial'] for x in mine] == [0, 1, 2] and all(x['n'] == 1 and x['seq'] > last for x in mine), mine
assert abs(pg['p50'] - np.median([x['p50'] for x in mine])) <= 1e-9 * pg['p50'], pg
assert pn['status'] == b'unsupported' and b'no pinned memory' in pn['reason'], pn
pt = trials_of(pn)
assert [x['trial'] for x in pt] == [0, 1, 2] and all(x['status'] == b'unsupported' for x in pt), pt
" && ok || bad "the leg's cells and trials"
    fi
    "$rb" report "$work/p.h5" -o "$work/rep" >/dev/null 2>"$work/rerr" && ok || bad "report: $(cat "$work/rerr")"
    grep -q "## The full window in fresh processes" "$work/rep/report.md" && ok || bad "the report does not show the leg"
    # Its line on the processes' own memcpy: a correlation in [-1, 1] and two finite spreads.
    line=$(grep "Over the 3 processes with both" "$work/rep/report.md")
    python3 -c '
import math, re, sys
m = re.search(r"correlates (\S+) with .* spreads (\S+) % as measured, (\S+) % divided", sys.argv[1])
r, a, b = (float(x) for x in m.groups())
assert -1 <= r <= 1 and math.isfinite(a) and math.isfinite(b) and a >= 0 and b >= 0, m.groups()
assert "`memcpy_h2d_pageable_procs`" in sys.argv[1]
' "$line" 2>"$work/rerr" && ok || bad "the report's leg against its processes' own memcpy: $line $(cat "$work/rerr")"
    # --window-procs-keep: every process's own file (readable, with the leg's modes at the full window and
    # the references it measured: floor, memcpy, host_ref) and log stay in the folder; without --window-procs,
    # or when the folder cannot be made, a usage error before anything runs.
    TMPDIR=$work/tmp "$rb" run "${leg[@]}" --window-procs 3 --window-procs-keep "$work/keep" -o "$work/k.h5" \
        >/dev/null 2>"$work/err"
    st=$?
    [ $st -eq 0 ] && ok || bad "run --window-procs-keep exit $st: $(tail -3 "$work/err")"
    [ "$(cd "$work/keep" 2>/dev/null && echo p*)" = "p0000.h5 p0000.log p0001.h5 p0001.log p0002.h5 p0002.log" ] &&
        ok || bad "the kept folder holds: $(ls "$work/keep" 2>&1)"
    # Each kept file exports as any results file does, its references (host_ref, the floor) beside the leg.
    for i in 0 1 2; do
        "$rb" export "$work/keep/p000$i.h5" --format csv >"$work/keep$i.csv" 2>>"$work/err" &&
            grep -q ',host_ref,.*,ok,' "$work/keep$i.csv" && grep -q ',base_floor,.*,ok,' "$work/keep$i.csv" &&
            ok || bad "the kept p000$i.h5 exports without its references: $(head -c 300 "$work/keep$i.csv")"
    done
    if [ -n "$py" ]; then
        "$py" -c "
import h5py
for i in (0, 1, 2):
    c = h5py.File('$work/keep/p%04d.h5' % i, 'r')['/cells'][:]
    fams = set(r['family'] for r in c if r['status'] == b'ok')
    assert {b'throughput', b'base_floor', b'host_ref'} <= fams and any(f.startswith(b'memcpy_') for f in fams), fams
    assert sum(r['family'] == b'throughput' and r['xfer'] == b'zerocopy' for r in c) == 4, i
" && ok || bad "the kept files"
    fi
    "$rb" run "${leg[@]}" --window-procs-keep "$work/keep2" -o "$work/k2.h5" >/dev/null 2>"$work/err"
    st=$?
    [ $st -eq 2 ] && grep -q "give both" "$work/err" && [ ! -e "$work/keep2" ] && ok ||
        bad "--window-procs-keep without --window-procs: exit $st, $(cat "$work/err")"
    "$rb" run "${leg[@]}" --window-procs 2 --window-procs-keep "$work/p.h5" -o "$work/k3.h5" >/dev/null 2>"$work/err"
    st=$?
    [ $st -eq 2 ] && grep -q "cannot keep" "$work/err" && [ ! -e "$work/k3.h5" ] && ok ||
        bad "--window-procs-keep on a file: exit $st, $(cat "$work/err")"
    # A leg that cannot make its folder: a failed row per mode saying why, and exit 1.
    TMPDIR=$work/none "$rb" run "${leg[@]}" --window-procs 2 -o "$work/f.h5" >/dev/null 2>"$work/err"
    st=$?
    [ $st -eq 1 ] && ok || bad "a leg without its folder exit $st, wanted 1"
    if [ -n "$py" ]; then
        "$py" -c "
import h5py
c = h5py.File('$work/f.h5', 'r')['/cells'][:]
legs = [r for r in c if r['family'].endswith(b'_procs')]
assert len(legs) == 6 and all(r['status'] == b'failed' and b'cannot create a folder' in r['reason'] for r in legs), legs
assert all(r['status'] != b'failed' for r in c if not r['family'].endswith(b'_procs'))
" && ok || bad "the failed leg's rows"
    fi
    # SIGINT while the leg runs: the processes that finished are kept as the cells' trials, the file
    # is marked incomplete, the folder removed.
    TMPDIR=$work/tmp "$rb" run "${leg[@]}" --window-procs 200 -o "$work/i.h5" >/dev/null 2>"$work/err" &
    pid=$!
    for _ in $(seq 600); do
        ls "$work"/tmp/ringbench-procs-*/p0002.log >/dev/null 2>&1 && break
        sleep 0.1
    done
    kill -INT $pid
    wait $pid
    st=$?
    [ $st -eq 1 ] && ok || bad "an interrupted leg exit $st, wanted 1"
    [ -z "$(ls -A "$work/tmp")" ] && ok || bad "the interrupted leg left files behind: $(ls -R "$work/tmp")"
    if [ -n "$py" ]; then
        "$py" -c "
import h5py
f = h5py.File('$work/i.h5', 'r')
assert int(f.attrs['complete']) == 0
legs = [r for r in f['/cells'][:] if r['family'] == b'throughput_procs']
assert len(legs) == 4 and all(r['status'] == b'ok' and 2 <= r['trials'] < 200 for r in legs), legs
refs = [r for r in f['/cells'][:] if r['family'] in (b'memcpy_h2d_pinned_procs', b'memcpy_h2d_pageable_procs')]
assert len(refs) == 2 and all(r['trials'] == legs[0]['trials'] for r in refs), (refs, legs[0]['trials'])
" && ok || bad "the interrupted leg's file"
    fi
    ;;
interrupt)
    "$rb" run --backend cpu --preset default --trials 2 --timeout 60 -o "$work/i.h5" --quiet >"$work/out" 2>"$work/err" &
    pid=$!
    # Let it complete some rows (baselines, then the first mode's cells), then interrupt.
    sleep 5
    kill -INT $pid
    wait $pid
    st=$?
    [ $st -eq 1 ] && ok || bad "interrupted run exit $st, wanted 1"
    grep -q "interrupted by SIGINT" "$work/err" && ok || bad "no interrupt message: $(cat "$work/err")"
    [ -f "$work/i.h5" ] && [ ! -e "$work/i.h5.partial" ] && ok || bad "interrupted file not moved into place"
    "$rb" report "$work/i.h5" -o "$work/rep" >"$work/out" 2>"$work/rerr"
    [ $? -eq 0 ] && ok || bad "report of the interrupted file failed: $(cat "$work/rerr")"
    grep -qi "incomplete\|interrupted" "$work/rep/report.md" && ok || bad "report does not say the run was interrupted"
    if command -v h5dump >/dev/null; then
        h5dump -a /complete "$work/i.h5" | grep -q "(0): 0" && ok || bad "complete != 0"
        h5dump -a /interrupted_by "$work/i.h5" | grep -q "SIGINT" && ok || bad "interrupted_by != SIGINT"
    fi
    if [ -n "$py" ]; then
        "$py" -c "
import sys, h5py
f = h5py.File('$work/i.h5', 'r')
c, t = f['/cells'][:], f['/trials'][:]
assert len(c) > 10, len(c)
assert all(r['status'] in (b'ok', b'invalid', b'unsupported') for r in c), 'a failed row'
assert len(t) > 0, 'no trials kept'
# Every trial that completed is kept: each ok row's trials are in /trials.
for r in c:
    if r['status'] == b'ok':
        assert (t['cell_id'] == r['cell_id']).sum() == r['trials'] >= 1, r
" && ok || bad "interrupted file content"
    fi
    ;;
placement)
    "$rb" run "${tiny[@]}" --trials 1 --cpu 0 -o "$work/p.h5" >"$work/out" 2>"$work/err"
    st=$?
    [ $st -eq 0 ] && ok || bad "one-CPU run exit $st: $(tail -3 "$work/err")"
    grep -q "WARNING: only 1 usable CPU" "$work/err" && ok || bad "no placement warning: $(cat "$work/err")"
    if command -v h5dump >/dev/null; then
        h5dump -a /provenance/placement_warning "$work/p.h5" | grep -q "only 1 usable CPU" && ok ||
            bad "provenance lacks the placement warning"
        h5dump -a /provenance/cpu_list "$work/p.h5" | grep -q '"0"' && ok || bad "provenance cpu_list != 0"
    fi
    if command -v taskset >/dev/null; then
        taskset -c 0 "$rb" run "${tiny[@]}" --trials 1 -o "$work/t.h5" >"$work/out" 2>"$work/err"
        grep -q "WARNING: only 1 usable CPU (0 from mask)" "$work/err" && ok || bad "taskset mask not seen: $(cat "$work/err")"
    fi
    ;;
sizes)
    # More sizes than the report's tables once held: the "Slow trials" section has a row for each
    # of the 44 ring sizes (3 trials each), none dropped.
    "$rb" run "${tiny[@]}" --sizes "$(seq -s, 4 4 176)" --window 1 --trials 3 -o "$work/s.h5" >/dev/null 2>"$work/err"
    st=$?
    [ $st -eq 0 ] && ok || bad "44-size run exit $st: $(tail -3 "$work/err")"
    "$rb" report "$work/s.h5" -o "$work/rep" --no-render >/dev/null 2>"$work/err" && ok || bad "report: $(tail -2 "$work/err")"
    n=$(sed -n '/^## Slow trials/,/^## /p' "$work/rep/report.md" | grep -c '^| ring |')
    [ "$n" -eq 44 ] && ok || bad "slow-trial table: $n ring rows, not 44"
    ;;
anatomy)
    # The anatomy on the CPU backend: a table with every part, each round trip matched with its
    # kernel record, and the floor measured beside it.
    "$rb" anatomy --backend cpu --samples 300 --warmup-msgs 20 --no-pin >"$work/out" 2>"$work/err"
    st=$?
    [ $st -eq 0 ] && ok || bad "anatomy exit $st: $(tail -3 "$work/err")"
    grep -q "300 round trips timed (all 320 replies verified), 300 matched with the kernel's trace" "$work/out" &&
        ok || bad "anatomy: not every round trip matched: $(head -3 "$work/out")"
    for part in "round trip" send poll work publish outside idle polls; do
        grep -Eq "^\| $part +\| +[0-9]" "$work/out" && ok || bad "anatomy: no numbers for '$part'"
    done
    grep -q "^floor (ping-pong, same process): p10 [0-9]" "$work/out" && ok || bad "anatomy: no floor"
    ! grep -iwq nan "$work/out" && ok || bad "anatomy: nan: $(grep -iw nan "$work/out")"
    # With --window: per window the rate table, then where its time goes - the kernel's parts of a
    # batch and the host's time per post and per reply, its busy share a percentage (ring_stats
    # post_ns and reap_ns, timed with the trace on).
    "$rb" anatomy --backend cpu --window 1,8 --seconds 0.05 --no-pin >"$work/out" 2>"$work/err"
    st=$?
    [ $st -eq 0 ] && ok || bad "anatomy --window exit $st: $(tail -3 "$work/err")"
    [ "$(grep -Ec '^\| +(1|8) \| +[0-9.]+ \| +[0-9.]+ \| +[0-9]+ % \|' "$work/out")" -eq 2 ] && ok ||
        bad "anatomy --window: no rate row per window: $(head -8 "$work/out")"
    awk -F'|' '/^\| window \| k poll/ {t = 1; next} t && /^\| +[0-9]+ \|/ {
            n++; busy = $9 + 0
            for (f = 3; f <= 9; f++) if ($f !~ /^ *([0-9]+(\.[0-9]+)? *%?|n\/a) *$/) bad = 1
            if ($3 + 0 <= 0 || $7 + 0 <= 0 || busy > 100) bad = 1
        } END { exit !(n == 2 && !bad) }' "$work/out" && ok ||
        bad "anatomy --window: the time table is missing or out of range: $(tail -12 "$work/out")"
    ! grep -iwq nan "$work/out" && ok || bad "anatomy --window: nan (a figure not seen says n/a): $(grep -iw nan "$work/out")"
    ;;
badinput)
    expect 2
    expect 2 frob
    expect 0 --help
    expect 0 --version
    expect 0 run --help
    expect 0 anatomy --help
    expect 2 anatomy --mode pinned/async
    expect 2 anatomy --mode malloc/zerocopy/coop/mapped
    expect 2 anatomy --size 8,64
    expect 2 anatomy --samples 4000 --warmup-msgs 200
    expect 2 anatomy --backend gpu
    expect 2 anatomy --frob
    expect 0 list
    expect 2 list bogus
    expect 2 run --modes host=gold
    expect 2 run --cb-batch 0
    expect 2 run --cb-batch many
    expect 2 run --post-max -1
    expect 2 run --post-max 5000
    expect 2 anatomy --post-max lots
    expect 2 run --verify-split -1
    expect 2 run --verify-split 5G
    expect 2 anatomy --verify-split lots
    expect 2 run --modes color=red
    expect 2 run --modes host=pinned,host=malloc
    expect 2 run --workers 9
    expect 2 run --workers -1
    expect 2 run --sizes 0
    expect 2 run --sizes 6
    expect 2 run --sizes 8..4
    expect 2 run --sizes 2G
    expect 2 run --sizes 8..4M:x1
    expect 2 run --sizes 4Q
    expect 2 run --preset nope
    expect 2 run --backend gpu
    expect 2 run --device -1
    expect 2 run --seed x
    expect 2 run --timeout 0
    expect 2 run --max-lifetime -5
    expect 2 run --output
    expect 2 run --bogus
    expect 2 run --trials 0
    expect 2 run --window 0
    expect 2 run --window 8,x
    expect 2 run --cpu abc
    expect 2 run --cpu 100000
    expect 2 run --cpu 4095
    expect 2 run "${tiny[@]}" -o /nonexistent-dir/x.h5
    [ ! -e /nonexistent-dir ] && ok || bad "created a directory"
    expect 0 run "${tiny[@]}" -o "$work/x.h5"
    expect 2 run "${tiny[@]}" -o "$work/x.h5"
    expect 0 run "${tiny[@]}" -o "$work/x.h5" --force
    expect 0 run "${tiny[@]}" -o "$work/name with 'quotes' and spaces.h5"
    expect 0 report "$work/name with 'quotes' and spaces.h5"
    expect 2 report "$work/does-not-exist.h5"
    echo "not hdf5" >"$work/text.h5"
    expect 2 report "$work/text.h5"
    expect 2 compare "$work/x.h5"
    head -c 3000 "$work/x.h5" >"$work/cut.h5"
    expect 2 report "$work/cut.h5"
    if "$rb" probe | grep -q "cuda_usable *1"; then
        echo "a CUDA device is usable here: the --backend cuda refusal is not checked"
    else
        expect 1 run --backend cuda --preset quick -o "$work/c.h5"
        [ ! -e "$work/c.h5" ] && [ ! -e "$work/c.h5.partial" ] && ok || bad "--backend cuda left a file"
    fi
    ;;
grammar)
    for cmd in run probe list report compare track export anatomy "sensitivity run" "sensitivity report"; do
        # shellcheck disable=SC2086 # "sensitivity run" is two words
        {
            expect 0 $cmd --help
            expect 0 $cmd -h
            expect 2 $cmd --no-such-option
            expect 2 $cmd --no-such-option=1
            expect 2 $cmd --help=1
        }
    done
    [ "$("$rb" --help | grep -c '^  [a-z]')" -eq 9 ] && ok || bad "ringbench --help does not list the 9 commands"
    "$rb" help | cmp -s - <("$rb" --help) && ok || bad "ringbench help differs from ringbench --help"
    # --name=value, and -- ending the options, command by command.
    expect 0 run --backend=cpu --preset=quick --quiet --timeout=60 --sizes=8 --trials=1 \
        --modes=host=pinned,xfer=zerocopy,launch=noncoop,ctrl=mapped --output="$work/eq.h5"
    if command -v h5dump >/dev/null; then # recorded as typed, not as getopt reorders argv
        h5dump -a /provenance/command_line "$work/eq.h5" | grep -q -- "ringbench run --backend=cpu --preset=quick" &&
            ok || bad "command_line not as typed: $(h5dump -a /provenance/command_line "$work/eq.h5" | grep '(0)')"
    fi
    expect 0 run "${tiny[@]}" --trials 1 -o "$work/dd.h5" --
    expect 2 run "${tiny[@]}" --trials 1 -o "$work/extra.h5" -- extra
    expect 0 probe --device=0 --pinned-max=64M --output="$work/probe.h5"
    expect 0 probe --
    expect 0 list -- presets
    expect 0 report --min-effect=5 --reps=100 --no-render --output="$work/r1" "$work/eq.h5"
    [ -f "$work/r1/report.md" ] && ok || bad "report --output= wrote no report.md"
    expect 0 report --no-render -o "$work/r2" -- "$work/eq.h5"
    expect 0 compare --min-effect=5 --reps=100 --no-render --output="$work/c1" "$work/eq.h5" "$work/dd.h5"
    expect 0 compare --no-render -o "$work/c2" -- "$work/eq.h5" "$work/dd.h5"
    expect 0 export --format=csv --output="$work/e1.csv" "$work/eq.h5"
    if "$rb" export -f json -o "$work/e0.json" "$work/eq.h5" 2>"$work/jerr"; then
        expect 0 export -f json -o "$work/e2.json" -- "$work/eq.h5"
    elif grep -q "built without jansson" "$work/jerr"; then # the H100 machine has no jansson
        expect 2 export -f json -o "$work/e2.json" -- "$work/eq.h5"
        echo "note: built without jansson: json export refused, as it should be"
    else
        bad "export -f json failed: $(tail -2 "$work/jerr")"
    fi
    if "$rb" track --history "$work/h0" --no-page >/dev/null 2>&1; then
        expect 0 track --history="$work/h1" --window=5 --min-effect=3 --no-page "$work/eq.h5"
        expect 0 track --history "$work/h1" --no-page -- "$work/dd.h5"
        expect 0 track --history "$work/h1" --no-page --output="$work/judged.csv" "$work/dd.h5"
        [ -s "$work/judged.csv" ] && ok || bad "track --output wrote no judgement"
    else
        echo "note: built without SQLite: track's grammar not checked beyond --help"
    fi
    expect 0 anatomy --backend=cpu --samples=50 --warmup-msgs=5 --no-pin
    expect 0 anatomy --backend cpu --samples 50 --warmup-msgs 5 --no-pin --
    expect 0 sensitivity run --dry-run --costs=1 --targets=all --output="$work/s"
    expect 0 sensitivity run --dry-run --costs 1 -- --cpu 0
    expect 2 sensitivity run --dry-run stray
    expect 2 sensitivity report --reps=100 -- "$work/no-such-dir"
    grep -q "no-such-dir" "$work/err" && ok || bad "sensitivity report -- DIR: $(cat "$work/err")"
    ;;
*)
    echo "usage: cli_test.sh RINGBENCH WORKDIR quick|interrupt|badinput|grammar [PYTHON] [SCHEMA_H]"
    exit 2
    ;;
esac
echo "$((checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
