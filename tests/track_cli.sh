#!/usr/bin/env bash
# track_cli.sh - `ringbench export` and `ringbench track` end to end on a tiny CPU-backend run.
#
#   track_cli.sh RINGBENCH WORKDIR export|pandas|track|nightly [HAVE_JANSSON [MAKE_NIGHT]]
#
# export  BMF output has the published shape of Bencher Metric Format (JSON Schema at
#         https://bencher.dev/bmf.json: an object of benchmarks, each an object of measures, each an
#         object with a numeric "value" and optional numeric "lower_value"/"upper_value"); the JSON
#         export holds every row; every error path exits 2 with one line on stderr
# pandas  the CSV export reads back with pandas (skipped, 77, without pandas)
# track   a first run is a new fingerprint (exit 0), tracking it again copies nothing, a damaged file
#         and bad options exit 2 with one line; without --history the history is under XDG_STATE_HOME
#         or HOME, never in the working directory; --export without a run is a usage error (exit 2)
# nightly twelve quiet nights of a synthetic machine (MAKE_NIGHT, tests/make_night.c) tracked in turn:
#         the verdict is line 1 of every night, the first five say "not judged yet (k of 5 runs)", a
#         green night is at most 20 lines with its method only under --verbose; then the async path's
#         8 B round trips 15 % slower: exit 1 with REGRESSION on line 1 naming the claim's round trip;
#         no "nan" in any output or on the history page, which opens with the last night's verdict
set -u
rb=$1 work=$2 what=$3 have_jansson=${4:-OFF} make_night=${5:-}
rm -rf "$work" && mkdir -p "$work" || exit 1
# shellcheck source=cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"
# The first python3 with pandas: PATH's, else the distribution's (a pyenv or venv python3 on PATH often
# lacks the packages apt installed for /usr/bin/python3).
py=""
if [ "$what" = pandas ]; then
    for c in python3 /usr/bin/python3; do
        if "$c" -c 'import pandas' 2>/dev/null; then py=$c && break; fi
    done
    if [ -z "$py" ]; then
        echo "SKIPPED: no python3 with pandas (apt-get install python3-pandas)"
        exit 77
    fi
fi

if [ "$what" = nightly ]; then
    "$rb" track --history "$work/probe" --no-page >/dev/null 2>"$work/err"
    if grep -q "without SQLite" "$work/err"; then
        echo "SKIPPED: built without SQLite (libsqlite3-dev): track is not built"
        exit 77
    fi
    h=$work/h
    # nan_free FILE...: no "nan" as a word (a number printf could not write) in any of them
    nan_free() { ! grep -iwn 'nan' "$@"; }
    for night in $(seq 1 12); do
        n2=$(printf %02d "$night")
        "$make_night" "$work/n$n2.h5" "$night" || { bad "make_night $night"; break; }
        "$rb" track "$work/n$n2.h5" --history "$h" >"$work/out$n2" 2>"$work/err$n2"
        st=$?
        first=$(head -1 "$work/out$n2")
        [ $st -eq 0 ] && ok || bad "night $night: exit $st: $(head -3 "$work/out$n2") $(cat "$work/err$n2")"
        if [ "$night" -le 5 ]; then
            case $first in
            "OK: not judged yet ($((night - 1)) of 5 runs)"*) ok ;;
            *) bad "night $night: line 1 is not 'OK: not judged yet ($((night - 1)) of 5 runs)': $first" ;;
            esac
        else
            case $first in
            "OK: no regression in "*" judged cells (shift "*" %)") ok ;;
            *) bad "night $night: line 1 is not the OK verdict: $first" ;;
            esac
        fi
        nan_free "$work/out$n2" "$work/err$n2" "$h/history.md" >/dev/null && ok ||
            bad "night $night: nan in the output or the page: $(nan_free "$work/out$n2" "$work/err$n2" "$h/history.md")"
    done
    grep -q "not judged yet (3 of 5 runs)" "$work/out04" && ok || bad "night 4 does not say 'not judged yet (3 of 5 runs)'"
    [ "$(wc -l <"$work/out12")" -le 20 ] && ok || bad "a green night is $(wc -l <"$work/out12") lines, over 20"
    ! grep -q "^method:" "$work/out12" && ok || bad "the method prints without --verbose"
    grep -q "catches" "$work/out12" && grep -q "round trip, 8 B" "$work/out12" && ok ||
        bad "night 12 names no headline figure with what it catches: $(cat "$work/out12")"
    echo "--- night 12, a green night:"; cat "$work/out12"
    # --verbose: the method and the budget, still after the verdict
    cp -r "$h" "$work/hv"
    "$rb" track "$work/n12.h5" --history "$work/hv" --verbose --no-page >"$work/outv" 2>/dev/null
    [ "$(head -c 3 "$work/outv")" = "OK:" ] && grep -q "^method:" "$work/outv" && grep -q "^budget:" "$work/outv" &&
        nan_free "$work/outv" >/dev/null && ok || bad "--verbose: $(head -20 "$work/outv")"
    # night 13: the async path's 8 B round trips 15 % slower (what run --no-early-take does on an H100)
    "$make_night" "$work/n13.h5" 13 1.15 || bad "make_night 13"
    "$rb" track "$work/n13.h5" --history "$h" --export "$work/n13.csv" >"$work/out13" 2>"$work/err13"
    st=$?
    first=$(head -1 "$work/out13")
    [ $st -eq 1 ] && ok || bad "the slower round trips: exit $st, not 1"
    case $first in
    "REGRESSION (exit 1): "*"round trip, 8 B, native path +1"*) ok ;;
    *) bad "the slower round trips: line 1 is not a REGRESSION naming the claim's round trip: $first" ;;
    esac
    nan_free "$work/out13" "$h/history.md" >/dev/null && ok || bad "nan on the regression night"
    [ "$(grep -c 'first seen' "$work/out13")" -le 1 ] && ok || bad "'first seen' said more than once"
    echo "--- night 13, a regression night:"; cat "$work/out13"
    # the history page opens with the last night's verdict, then its regressed cells and the nights
    sed -n 3p "$h/history.md" | grep -q '^\*\*Last night: REGRESSION (exit 1): ' && ok ||
        bad "history.md does not open with the last night's verdict: $(head -5 "$h/history.md")"
    grep -q '^| regressed cell |' "$h/history.md" && grep -q '^| date (UTC) | commit | run | verdict |' "$h/history.md" &&
        ok || bad "history.md has no regressed cells or nights table"
    grep -q 'plots/m0_round_trip_small.png' "$h/history.md" && [ -s "$h/plots/m0_round_trip_small.dat" ] && ok ||
        bad "history.md has no plot of the round trip"
    echo "--- history.md:"; head -30 "$h/history.md"
    # --export without a run to judge: a usage error
    expect 2 track --history "$h" --export "$work/nothing.csv"
    [ ! -e "$work/nothing.csv" ] && ok || bad "--export without a run wrote a file"
    echo "$checks checks, $fails failed"
    [ "$fails" -eq 0 ]
    exit
fi

"$rb" run --backend cpu --preset quick --quiet --timeout 60 --sizes 8 \
    --modes host=pinned,xfer=zerocopy,launch=noncoop,ctrl=mapped -o "$work/q.h5" >/dev/null 2>"$work/run.err" \
    || { echo "FAIL: the tiny run failed: $(tail -3 "$work/run.err")"; exit 1; }

case $what in
export)
    if "$rb" export "$work/q.h5" --format bmf -o "$work/q.bmf.json" 2>"$work/err"; then
        python3 - "$work/q.bmf.json" <<'PY' && ok || bad "BMF shape"
import json, math, sys
doc = json.load(open(sys.argv[1]))
assert isinstance(doc, dict) and doc, "BMF: a non-empty object of benchmarks"
num = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
for name, measures in doc.items():
    assert isinstance(name, str) and name, name
    assert isinstance(measures, dict) and measures, name
    for slug, metric in measures.items():
        assert isinstance(slug, str) and 0 < len(slug) <= 64, slug
        assert isinstance(metric, dict) and num(metric.get("value")), (name, slug)
        assert set(metric) <= {"value", "lower_value", "upper_value"}, metric
        if "lower_value" in metric:
            assert num(metric["lower_value"]) and num(metric["upper_value"]), metric
            assert metric["lower_value"] <= metric["upper_value"], metric
assert any("latency" in m for m in doc.values()), "no latency measure"
try:
    import jsonschema  # validates against the published schema where the module is installed
    schema = {"type": "object", "patternProperties": {".+": {"type": "object", "patternProperties": {".+": {
        "type": "object", "properties": {"value": {"type": "number"}, "lower_value": {"type": "number"},
        "upper_value": {"type": "number"}}, "required": ["value"]}}}}}
    jsonschema.validate(doc, schema)
except ImportError:
    pass
PY
    elif grep -q "without jansson" "$work/err" && [ "$have_jansson" != ON ]; then
        ok; echo "note: built without jansson: BMF not checked"
    else
        bad "export bmf: $(cat "$work/err")"
    fi
    if "$rb" export "$work/q.h5" --format json -o "$work/q.json" 2>"$work/err"; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["tool"]=="ringbench" and d["rows"] and "provenance" in d' \
            "$work/q.json" && ok || bad "JSON export"
    elif [ "$have_jansson" = ON ]; then
        bad "export json, built with jansson: $(cat "$work/err")"
    fi
    expect 0 export "$work/q.h5" --format csv -o "$work/q.csv"
    # The pairs table of `ringbench compare` exports the same way.
    cat >"$work/compare_pairs.dat" <<'DAT'
# every pair: overhead of OTHER over BASE = median(OTHER)/median(BASE) - 1 (GB/s families: on time per
# byte), with its 95% bootstrap CI; verdict faster|slower|same (same = within noise) or n/a
# family mode size_bytes base_p50 other_p50 overhead ci_lo ci_hi verdict
latency pinned/async/coop/mapped 8 23.3 27.1 0.163090 0.120000 0.210000 slower
cb_read malloc/sync/noncoop/device 0 8.6 8.5 -0.011628 -0.030000 0.010000 same
DAT
    expect 0 export "$work/compare_pairs.dat" --format csv -o "$work/pairs.csv"
    [ "$(wc -l <"$work/pairs.csv")" -eq 3 ] && grep -q "compare/latency/pinned/async/coop/mapped/8B" "$work/pairs.csv" \
        && ok || bad "compare pairs CSV: $(cat "$work/pairs.csv")"
    if "$rb" export "$work/compare_pairs.dat" --format bmf -o "$work/pairs.bmf" 2>/dev/null; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["compare/latency/pinned/async/coop/mapped/8B"]["overhead-pct"]; assert abs(m["value"]-16.309)<1e-6 and m["lower_value"]<m["value"]<m["upper_value"]' \
            "$work/pairs.bmf" && ok || bad "compare pairs BMF"
    fi
    # Issue 22, D7: a FIFO as the input or the output is refused at once (it used to wait forever).
    if mkfifo "$work/fifo" 2>/dev/null; then
        timeout 20 "$rb" export "$work/fifo" --format csv >/dev/null 2>"$work/err"
        rc=$?
        [ "$rc" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && ok || bad "export of a FIFO: exit $rc: $(cat "$work/err")"
        timeout 20 "$rb" export "$work/q.h5" --format csv -o "$work/fifo" >/dev/null 2>"$work/err"
        rc=$?
        [ "$rc" -eq 2 ] && [ -p "$work/fifo" ] && ok || bad "export -o FIFO: exit $rc: $(cat "$work/err")"
        # The temporary file is OUTPUT.tmp-PID (results/outfs.h): a FIFO someone left as OUTPUT.tmp is
        # not ours, never opened, and left alone.
        mkfifo "$work/q.csv2.tmp"
        timeout 20 "$rb" export "$work/q.h5" --format csv -o "$work/q.csv2" >/dev/null 2>"$work/err"
        rc=$?
        [ "$rc" -eq 0 ] && [ -p "$work/q.csv2.tmp" ] && [ -s "$work/q.csv2" ] && ok ||
            bad "export beside a FIFO left as OUTPUT.tmp: exit $rc: $(cat "$work/err")"
    fi
    # Issue 22: JSON of a file whose texts are not UTF-8 and whose counters exceed 2^63-1: nothing
    # is dropped or wrapped to a negative number, and stderr says what was escaped.
    hpy=""
    for c in python3 /usr/bin/python3; do
        if "$c" -c 'import h5py' 2>/dev/null; then hpy=$c && break; fi
    done
    if [ -n "$hpy" ] && "$rb" export "$work/q.h5" --format json -o "$work/probe.json" 2>/dev/null; then
        echo "hostile JSON export: checked"
        cp "$work/q.h5" "$work/hostile.h5"
        "$hpy" - "$work/hostile.h5" <<'PY' || bad "could not write the hostile copy"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    p = f["/provenance"]
    del p.attrs["hostname"]
    p.attrs.create("hostname", np.bytes_(b"host\xff\xfe-\xc3\xa9"))
    c = f["/cells"]
    row = c[0]
    row["lost"] = np.uint64(2**64 - 1)
    c[0] = row
PY
        "$rb" export "$work/hostile.h5" --format json -o "$work/hostile.json" 2>"$work/err"
        rc=$?
        [ "$rc" -eq 0 ] && grep -q "not UTF-8" "$work/err" && grep -q "above 2^63-1" "$work/err" \
            && grep -q "WARNING: .*/cells row 0" "$work/err" && ok || bad "hostile JSON export: exit $rc: $(cat "$work/err")"
        python3 - "$work/hostile.json" <<'PY' && ok || bad "hostile JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["provenance"]["hostname"] == "host\\xFF\\xFE-\u00e9", d["provenance"].get("hostname")
r = d["rows"][0]
assert r["lost"] == "18446744073709551615", r["lost"]
assert r["status"] == "damaged" and r["reason"].startswith("damaged: its checksum"), (r["status"], r["reason"])
assert all(isinstance(x["check"], str) and x["check"].startswith("0x") for x in d["rows"])
PY
    fi
    expect 2 export "$work/q.h5"
    expect 2 export "$work/q.h5" --format yaml
    expect 2 export "$work/missing.h5" --format csv
    expect 2 export "$work/q.h5" --format csv --bogus
    ;;
pandas)
    expect 0 export "$work/q.h5" --format csv -o "$work/q.csv"
    "$py" - "$work/q.csv" "$work/q.h5" <<'PY' && ok || bad "pandas read_csv"
import csv, sys, pandas as pd
with open(sys.argv[1], newline="") as f:
    header = next(csv.reader(f))
assert len(header) == len(set(header)), f"duplicate column names: {sorted(c for c in header if header.count(c) > 1)}"
df = pd.read_csv(sys.argv[1])
assert len(df) > 0 and {"cell", "family", "p50", "ci_lo", "ci_hi", "status"} <= set(df.columns), df.columns
ok = df[df.status == "ok"]
assert ok.p50.notna().all() and (ok.p50 > 0).all()
assert df.cell.is_unique, "cell keys must be unique within a run"
PY
    ;;
track)
    if "$rb" track "$work/q.h5" --history "$work/h" >"$work/out" 2>"$work/err"; then
        grep -q "a new machine: no earlier complete run" "$work/out" && ok || bad "first run not reported as a new machine"
        [ -f "$work/h/q.h5" ] && [ -f "$work/h/index.sqlite" ] && [ -f "$work/h/history.md" ] && ok \
            || bad "history files missing: $(ls "$work/h")"
        expect 0 track "$work/q.h5" --history "$work/h"
        grep -q "already in" "$work/err" && ok || bad "second track of the same file not recognised"
        [ "$(ls "$work/h"/*.h5 | wc -l)" -eq 1 ] && ok || bad "the same run was copied twice"
        printf 'garbage' >"$work/bad.h5"
        expect 2 track "$work/bad.h5" --history "$work/h"
        expect 2 track "$work/q.h5" --history "$work/h" --z abc
        expect 2 track "$work/q.h5" --history "$work/h" --frobnicate
        # Without --history: $XDG_STATE_HOME/ringbench/history, else ~/.local/state/ringbench/history (an
        # unset or relative XDG_STATE_HOME is ignored); never the working directory.
        mkdir -p "$work/cwd" && (cd "$work/cwd" && XDG_STATE_HOME=$work/state HOME=$work/home \
            "$rb" track "$work/q.h5" --no-page) >/dev/null 2>&1
        [ -f "$work/state/ringbench/history/q.h5" ] && [ ! -e "$work/home/.local" ] && [ -z "$(ls -A "$work/cwd")" ] &&
            ok || bad "track without --history, XDG_STATE_HOME set: $(cd "$work" && find state home cwd 2>&1)"
        (cd "$work/cwd" && env -u XDG_STATE_HOME HOME=$work/home "$rb" track "$work/q.h5" --no-page) >/dev/null 2>&1
        [ -f "$work/home/.local/state/ringbench/history/q.h5" ] && ok ||
            bad "track without --history or XDG_STATE_HOME: $(cd "$work" && find home 2>&1)"
        (cd "$work/cwd" && XDG_STATE_HOME=relative/state HOME=$work/home2 "$rb" track "$work/q.h5" --no-page) \
            >/dev/null 2>&1
        [ -f "$work/home2/.local/state/ringbench/history/q.h5" ] && [ -z "$(ls -A "$work/cwd")" ] && ok ||
            bad "a relative XDG_STATE_HOME was not ignored: $(cd "$work" && find home2 cwd 2>&1)"
        (cd "$work/cwd" && env -u XDG_STATE_HOME -u HOME "$rb" track "$work/q.h5") >/dev/null 2>"$work/err"
        st=$?
        [ $st -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && ok || bad "no HOME: exit $st, $(cat "$work/err")"
    elif grep -q "without SQLite" "$work/err"; then
        expect 2 track "$work/q.h5" --history "$work/h"
        echo "note: built without SQLite: only the error path checked"
    else
        bad "track: $(cat "$work/err")"
    fi
    ;;
esac
echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
