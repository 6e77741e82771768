#!/usr/bin/env bash
# io_cli.sh - what ringbench does when writing fails, on the CPU reference backend (issue 53).
#
#   io_cli.sh RINGBENCH WORKDIR CASE [HAVE_JANSSON] [HAVE_SQLITE]
#
# stdout    every command that prints (run, report, compare, export, list, probe, track) exits 1 (export
#           2, a file error) with one line naming standard output when stdout is /dev/full or closed
# fsize     a file-size limit (ulimit -f) reached by run, report, compare and export: one line with the
#           errno's text (File too large), a non-zero exit and no signal; the run's file keeps its rows
#           (readable, marked incomplete) and never replaces an earlier file; an earlier report,
#           comparison or export is left as it was; no *.tmp-*, *.partial or staging folder is left
#           track (with SQLite): its --export, its page and its index each failing in turn: exit 2 with
#           one line and the errno's text, no signal, the export, page and history before left as they
#           were (a run whose index update failed is not left in the folder) and no temporary file; the
#           same track without the limit then adds the run
# fulldisk  the same on a full disk (No space left on device): a small tmpfs in a mount namespace of its
#           own (unshare; skipped, 77, where the system allows none); and track's copy into a history
#           on it says the disk is full, not an earlier call's errno
# longpath  paths of 1 100 bytes work for run, report, compare and export (run once cut them to 1 023
#           bytes); a path over the system's limit is a usage error (exit 2) that says so
# empty    an empty option value (--sizes '', -o '', --modes host=) is a usage error of every command:
#           exit 2 with one line, never "the default" or "none of the axis"
# fault     a platform that never answers (run --inject-fault): a mode whose replies never come and one
#           whose replies come only after the wait fail with "no reply within 2 s", one whose replies
#           are stale with "stale reply: sequence 17 expected 18"; a mode without a fault is measured;
#           the run ends, its file reads, says FAULTS INJECTED and which faults, the report lists the
#           failed cells first, track refuses it; bad specs are usage errors
# interrupt SIGTERM during report leaves the report before as it was, no staging folder and no gnuplot
#           running; after SIGKILL the next report removes what the killed one left (gnuplot needed:
#           skipped, 77, without it)
set -u
rb=$1 work=$2 what=$3 have_jansson=${4:-OFF} have_sqlite=${5:-OFF}
rm -rf "$work" && mkdir -p "$work" || exit 1
# shellcheck source=cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# The smallest run: one mode at one size, on a generous wait bound (CI machines run tests side by side).
tiny=(--backend cpu --preset quick --quiet --timeout 60 --sizes 8 --modes host=pinned,xfer=zerocopy,launch=noncoop,ctrl=mapped)
# A run whose file grows over many appends to about 700 KiB.
grow=(--backend cpu --preset quick --quiet --timeout 60 --sizes 8,64,256,1K,4K --trials 2)

# fails_on_stdout WANT LABEL ARGS...: ringbench ARGS with stdout on /dev/full, then closed: exit WANT
# (non-zero) and a line on stderr that names standard output and the errno's text.
fails_on_stdout() {
    local want=$1 label=$2; shift 2
    "$rb" "$@" >/dev/full 2>"$work/err"
    local st=$?
    [ $st -eq "$want" ] && grep -q "standard output.*No space left on device" "$work/err" && ok ||
        bad "$label >/dev/full: exit $st (wanted $want): $(head -c 300 "$work/err")"
    "$rb" "$@" >&- 2>"$work/err"
    st=$?
    [ $st -eq "$want" ] && grep -q "standard output.*Bad file descriptor" "$work/err" && ok ||
        bad "$label >&-: exit $st (wanted $want): $(head -c 300 "$work/err")"
}

# snapshot DIR: DIR's files with their checksums (to see that an output was left as it was).
snapshot() { (cd "$1" && find . -type f | sort | xargs md5sum) 2>/dev/null; }

# no_leftovers DIR: nothing of a writer that failed is left in DIR.
no_leftovers() {
    local left
    left=$(find "$1" -name '*.tmp-*' -o -name '*.partial' -o -name '*.old-*' | head -3)
    [ -z "$left" ] && ok || bad "left behind in $1: $left"
}

# write_fails WHY WANT LABEL: the command just run (exit status $st, stderr in $work/err) exited WANT, not
# by a signal, with a line saying WHY.
write_fails() {
    local why=$1 want=$2 label=$3
    if [ "$st" -ge 128 ]; then
        bad "$label: killed by signal $((st - 128)): $(head -c 300 "$work/err")"
    elif [ "$st" -ne "$want" ]; then
        bad "$label: exit $st (wanted $want): $(head -c 300 "$work/err")"
    elif ! grep -q "$why" "$work/err"; then
        bad "$label: no line saying '$why': $(head -c 400 "$work/err")"
    else
        ok
    fi
}

# failing_run DIR WHY: a run into DIR whose writes start failing as WHY says (the caller's `limited run`):
# exit 1 with the cause; the rows written are in DIR/new.h5, readable and marked incomplete; an earlier
# file is never replaced by such a run (--force).
failing_run() {
    local dir=$1 why=$2
    limited run "$rb" run "${grow[@]}" -o "$dir/new.h5" >/dev/null 2>"$work/err"
    st=$?
    write_fails "$why" 1 "run"
    [ "$(grep -vc "CPU REFERENCE\|WARNING" "$work/err")" -le 2 ] && ok || bad "run: more than the cause and where the rows are: $(cat "$work/err")"
    if [ -f "$dir/new.h5" ]; then
        "$rb" export "$dir/new.h5" --format csv >"$work/new.csv" 2>/dev/null && ok || bad "the run's file does not read"
        [ "$(wc -l <"$work/new.csv")" -gt 1 ] && ok || bad "the run's file kept no rows"
        "$rb" report --no-render "$dir/new.h5" -o "$work/newrep" 2>&1 >/dev/null | grep -q "INCOMPLETE" && ok ||
            bad "the run's file is not marked incomplete"
    else
        bad "the run left no $dir/new.h5: $(ls "$dir")"
    fi
    cp "$dir/old.h5" "$work/old.copy"
    limited run "$rb" run "${grow[@]}" --force -o "$dir/old.h5" >/dev/null 2>"$work/err"
    st=$?
    write_fails "$why" 1 "run --force onto an earlier file"
    cmp -s "$dir/old.h5" "$work/old.copy" && ok || bad "run --force replaced the earlier file with one it could not write whole"
    grep -q "is kept" "$work/err" && ok || bad "run --force does not say the earlier file is kept: $(cat "$work/err")"
    rm -f "$dir/old.h5.partial" "$dir/new.h5"
}

# failing_outputs DIR WHY: report, compare and export into DIR whose writes fail as WHY says (the caller's
# `limited out`): exit 1 (export 2) with the cause, the outputs before left as they were, nothing left over.
failing_outputs() {
    local dir=$1 why=$2 rep cmp csv
    rep=$(snapshot "$dir/rep") cmp=$(snapshot "$dir/cmp") csv=$(md5sum <"$dir/old.csv")
    limited out "$rb" report --no-render "$dir/old.h5" -o "$dir/rep" >/dev/null 2>"$work/err"
    st=$?
    write_fails "$why" 1 "report"
    [ "$(snapshot "$dir/rep")" = "$rep" ] && ok || bad "the report before was changed"
    limited out "$rb" compare --no-render "$dir/old.h5" "$dir/old.h5" -o "$dir/cmp" >/dev/null 2>"$work/err"
    st=$?
    write_fails "$why" 1 "compare"
    [ "$(snapshot "$dir/cmp")" = "$cmp" ] && ok || bad "the comparison before was changed"
    limited out "$rb" export "$dir/old.h5" --format csv -o "$dir/old.csv" 2>"$work/err"
    st=$?
    write_fails "$why" 2 "export"
    [ "$(md5sum <"$dir/old.csv")" = "$csv" ] && ok || bad "the export before was changed"
    if command -v gnuplot >/dev/null; then # an image gnuplot cut off (it exits 0) fails the report too
        limited img "$rb" report "$dir/old.h5" -o "$dir/rep" >/dev/null 2>"$work/err"
        st=$?
        write_fails "cut off: $why" 1 "report with images"
        [ "$(snapshot "$dir/rep")" = "$rep" ] && ok || bad "the report before was changed by one with cut images"
    fi
    no_leftovers "$dir"
}

# history_state H: H's run files and index with their checksums, and its page (the history as it was).
history_state() { (cd "$1" && md5sum ./*.h5 index.sqlite history.md) 2>/dev/null; }

# failing_track DIR WHY: track into the history DIR/hist whose writes fail as WHY says: its --export and its
# page (the caller's `limited trk`), then its index update (`limited idx`, the run file fits).
failing_track() {
    local dir=$1 why=$2 h=$1/hist state csv i
    for i in 1 2 3 4 5; do # an index larger than a run file, so that a limit between the two hits the index
        "$rb" run "${tiny[@]}" -o "$work/t$i.h5" >/dev/null 2>&1 && "$rb" track "$work/t$i.h5" --history "$h" \
            --no-page >/dev/null 2>&1 || bad "track t$i"
    done
    "$rb" track "$work/t5.h5" --history "$h" --export "$dir/night.csv" >/dev/null 2>&1 || bad "first track --export"
    state=$(history_state "$h") csv=$(md5sum <"$dir/night.csv")
    limited trk "$rb" track "$work/t5.h5" --history "$h" --export "$dir/night.csv" --no-page >/dev/null 2>"$work/err"
    st=$?
    write_fails "cannot write .*night.csv: $why" 2 "track --export"
    [ "$(md5sum <"$dir/night.csv")" = "$csv" ] && ok || bad "track --export changed the export before"
    limited trk "$rb" track --history "$h" >/dev/null 2>"$work/err"
    st=$?
    write_fails "cannot write .*$h/.*: $why" 2 "track's page"
    [ "$(grep -vc "WARNING\|CPU REF" "$work/err")" -eq 1 ] && ok || bad "track's page: not one line: $(cat "$work/err")"
    [ "$(history_state "$h")" = "$state" ] && ok || bad "track's page changed the history or the page before"
    "$rb" run "${tiny[@]}" -o "$work/t6.h5" >/dev/null 2>&1
    limited idx "$rb" track "$work/t6.h5" --history "$h" --no-page >/dev/null 2>"$work/err"
    st=$?
    write_fails "index.sqlite: .*$why" 2 "track's index update"
    [ "$(history_state "$h")" = "$state" ] && ok || bad "a failed index update changed the history: $(ls "$h")"
    no_leftovers "$dir"
    [ -z "$(find "$h" -name '.incoming-*' -o -name '*-journal')" ] && ok || bad "left in the history: $(ls -a "$h")"
    "$rb" track "$work/t6.h5" --history "$h" --no-page >"$work/out" 2>"$work/err"
    [ $? -le 1 ] && ok || bad "track after the failures: $(cat "$work/err")" # 1: a regression (CPU runs are noisy)
    [ "$(ls "$h"/*.h5 | wc -l)" -eq 6 ] && ok || bad "the history holds $(ls "$h"/*.h5 | wc -l) runs, wanted 6"
}

# earlier_outputs DIR: a run, its report, a comparison and an export, made before anything fails.
earlier_outputs() {
    local dir=$1
    "$rb" run "${tiny[@]}" -o "$dir/old.h5" >/dev/null 2>"$work/err" || { bad "run: $(tail -2 "$work/err")"; exit 1; }
    "$rb" report --no-render "$dir/old.h5" -o "$dir/rep" >/dev/null 2>&1 || bad "first report"
    "$rb" compare --no-render "$dir/old.h5" "$dir/old.h5" -o "$dir/cmp" >/dev/null 2>&1 || bad "first compare"
    "$rb" export "$dir/old.h5" --format csv -o "$dir/old.csv" 2>/dev/null || bad "first export"
}

case $what in
stdout)
    "$rb" run "${tiny[@]}" -o "$work/a.h5" >/dev/null 2>"$work/err" || { bad "tiny run: $(tail -2 "$work/err")"; exit 1; }
    "$rb" run "${tiny[@]}" -o "$work/b.h5" >/dev/null 2>"$work/err" || { bad "tiny run: $(tail -2 "$work/err")"; exit 1; }
    fails_on_stdout 1 list list
    fails_on_stdout 1 probe probe
    fails_on_stdout 1 "run" run "${tiny[@]}" --force -o "$work/c.h5"
    [ -f "$work/c.h5" ] && ok || bad "run with a failing stdout did not keep its results file"
    fails_on_stdout 1 report report --no-render "$work/a.h5" -o "$work/rep"
    fails_on_stdout 1 compare compare --no-render "$work/a.h5" "$work/b.h5" -o "$work/cmp"
    fails_on_stdout 2 export export "$work/a.h5" --format csv
    if [ "$have_sqlite" = ON ]; then
        fails_on_stdout 1 track track "$work/a.h5" --history "$work/hist"
    fi
    # A closed stdout is never taken over by a file: the results file is HDF5 from its first byte.
    "$rb" run "${tiny[@]}" -o "$work/d.h5" >&- 2>/dev/null
    head -c 8 "$work/d.h5" | od -c | grep -q "H   D   F" && ok || bad "a closed stdout let printf write into the results file"
    ;;
fsize)
    # ulimit -f counts KiB: a run stops after a few hundred KiB of rows (it keeps room for the next row
    # and the close); report.md is 27 KiB, the CSV a few; every plot's PNG or SVG is over 40.
    # track: 1 KiB for its export (3 KiB) and page (its plot scripts, over 1 KiB each); for its index, the
    # index's size: a run file (67 KiB) is copied in, the index cannot grow.
    limited() {
        local kind=$1 kib=1100
        shift
        [ "$kind" = out ] && kib=8
        [ "$kind" = img ] && kib=40
        [ "$kind" = trk ] && kib=1
        [ "$kind" = idx ] && kib=$(($(stat -c %s "$work/d/hist/index.sqlite") / 1024))
        (ulimit -f $kib && exec "$@")
    }
    mkdir -p "$work/d"
    earlier_outputs "$work/d"
    failing_run "$work/d" "File too large"
    failing_outputs "$work/d" "File too large"
    [ "$have_sqlite" = ON ] && failing_track "$work/d" "File too large"
    ;;
fulldisk)
    if [ "${RB_IO_INNER:-}" != 1 ]; then
        # A mount namespace of our own (as root, or as a user through a user namespace) for a small tmpfs.
        for how in "unshare -m" "unshare -rm"; do
            if $how true 2>/dev/null && $how sh -c 'mount -t tmpfs -o size=64k none /mnt' 2>/dev/null; then
                RB_IO_INNER=1 exec $how bash "$0" "$@"
            fi
        done
        echo "SKIPPED: no mount namespace for a small tmpfs here (unshare -m or -rm refused)"
        exit 77
    fi
    mkdir -p "$work/disk"
    mount -t tmpfs -o size=3m none "$work/disk" || { bad "mount tmpfs"; exit 1; }
    earlier_outputs "$work/disk"
    # The disk fills up: first with room for a few hundred KiB of rows, then with none at all (out) or
    # only for the report's text (img).
    fill() { dd if=/dev/zero of="$work/disk/filler" bs=1k count="$1" 2>/dev/null; }
    limited() {
        local kind=$1
        shift
        rm -f "$work/disk/filler"
        case $kind in
        run) fill $(($(df -k --output=avail "$work/disk" | tail -1) - 1100)) ;;
        few) fill $(($(df -k --output=avail "$work/disk" | tail -1) - 20)) ;;
        out | trk) fill 100000 ;;
        img) fill $(($(df -k --output=avail "$work/disk" | tail -1) - 100)) ;;
        idx) # room for the run file (tmpfs pages of 4 KiB; its size varies with the build) and one page more
            fill $(($(df -k --output=avail "$work/disk" | tail -1) - ($(stat -c %s "$work/t6.h5") + 4095) / 4096 * 4 - 4)) ;;
        esac
        "$@"
        local st=$?
        rm -f "$work/disk/filler"
        return $st
    }
    failing_run "$work/disk" "No space left on device"
    failing_outputs "$work/disk" "No space left on device"
    if [ "$have_sqlite" = ON ]; then
        # track's copy into the history: a write cut short by the last free KiB gave no errno of its own,
        # and an earlier call's stale one was said ("No such file or directory").
        "$rb" track "$work/disk/old.h5" --history "$work/disk/hist" --no-page >/dev/null 2>&1 || bad "first track"
        "$rb" run "${tiny[@]}" -o "$work/other.h5" >/dev/null 2>&1
        limited few "$rb" track "$work/other.h5" --history "$work/disk/hist" --no-page >/dev/null 2>"$work/err"
        st=$?
        write_fails "copying .*No space left on device" 2 "track onto a full disk"
        rm -rf "$work/disk/hist"
        failing_track "$work/disk" "No space left on device"
    fi
    umount "$work/disk"
    ;;
longpath)
    # 1 100 bytes in components of 100, the file name last; then one over PATH_MAX (4 096).
    long=$work
    while [ ${#long} -lt 1000 ]; do long=$long/$(printf 'd%.0s' $(seq 99)); done
    mkdir -p "$long" || { bad "mkdir of a long path"; exit 1; }
    "$rb" run "${tiny[@]}" -o "$long/run.h5" >/dev/null 2>"$work/err" && [ -f "$long/run.h5" ] && ok ||
        bad "run -o a ${#long}-byte path: $(tail -2 "$work/err")"
    [ -z "$(find "$work" -name 'run.h*' ! -path "$long/run.h5")" ] && ok || bad "the results went elsewhere: $(find "$work" -name 'run.h*')"
    "$rb" report --no-render "$long/run.h5" >/dev/null 2>"$work/err" && [ -f "$long/run-report/report.md" ] && ok ||
        bad "report next to a long path: $(tail -2 "$work/err")"
    "$rb" compare --no-render "$long/run.h5" "$long/run.h5" -o "$long/cmp" >/dev/null 2>"$work/err" &&
        [ -f "$long/cmp/compare.md" ] && ok || bad "compare -o a long path: $(tail -2 "$work/err")"
    "$rb" export "$long/run.h5" --format csv -o "$long/run.csv" 2>"$work/err" && [ -s "$long/run.csv" ] && ok ||
        bad "export -o a long path: $(tail -2 "$work/err")"
    over=$(printf '%04100d' 0 | tr 0 x)
    expect 2 run "${tiny[@]}" -o "$work/$over.h5"
    grep -q "over this system's limit" "$work/err" && ok || bad "run: no word of the limit: $(cat "$work/err")"
    expect 2 report --no-render "$long/run.h5" -o "$work/$over"
    grep -q "over this system's limit" "$work/err" && ok || bad "report: no word of the limit: $(cat "$work/err")"
    expect 2 compare --no-render "$long/run.h5" "$long/run.h5" -o "$work/$over"
    expect 2 export "$long/run.h5" --format csv -o "$work/$over.csv"
    grep -q "over this system's limit" "$work/err" && ok || bad "export: no word of the limit: $(cat "$work/err")"
    ;;
empty)
    "$rb" run "${tiny[@]}" -o "$work/a.h5" >/dev/null 2>"$work/err" || { bad "tiny run: $(tail -2 "$work/err")"; exit 1; }
    for opt in --modes --sizes --window --cpu --preset --backend --seed --timeout --trials --inject-call-us \
        --platform-limits --window-procs-keep --workers -o; do
        expect 2 run "${tiny[@]}" "$opt" ""
        grep -q "needs a value" "$work/err" && ok || bad "run $opt '': $(cat "$work/err")"
    done
    for modes in "host=" "host=pinned,xfer=" "ctrl=,host=pinned"; do
        expect 2 run --backend cpu --preset quick --quiet --sizes 8 --modes "$modes" -o "$work/e.h5"
        grep -q "names no value" "$work/err" && ok || bad "run --modes $modes: $(cat "$work/err")"
    done
    [ ! -e "$work/e.h5" ] && ok || bad "a run with an empty --modes value measured something"
    expect 2 run "${tiny[@]}" --output= -o "$work/e.h5"
    expect 2 report "$work/a.h5" -o ""
    expect 2 report "$work/a.h5" --call-overhead ""
    expect 2 compare "$work/a.h5" "$work/a.h5" --output ""
    expect 2 export "$work/a.h5" --format ""
    expect 2 export "$work/a.h5" --format csv -o ""
    expect 2 probe --pinned-max ""
    expect 2 anatomy --backend cpu --mode ""
    expect 2 anatomy --backend cpu --size ""
    expect 2 sensitivity run --costs "" -o "$work/s"
    expect 2 track "$work/a.h5" --history ""
    ;;
fault)
    never=pinned/zerocopy/coop/mapped late=pinned/async/coop/mapped stale=pinned/zerocopy/noncoop/mapped
    clean=pinned/async/noncoop/mapped
    timeout 300 "$rb" run --backend cpu --preset quick --quiet --sizes 8 --trials 1 --timeout 2 \
        --modes "$never,$late,$stale,$clean" --inject-fault "$never=never,$late=late,$stale=stale" \
        -o "$work/f.h5" >"$work/out" 2>"$work/err"
    st=$?
    [ $st -eq 1 ] && ok || bad "a run with failed cells: exit $st (wanted 1): $(tail -3 "$work/err")"
    grep -q "FAULTS INJECTED ($never=never" "$work/err" && ok || bad "the run does not say FAULTS INJECTED: $(cat "$work/err")"
    grep -q "FAULTS INJECTED" "$work/out" && ok || bad "the summary does not say FAULTS INJECTED"
    "$rb" export "$work/f.h5" --format csv -o "$work/f.csv" 2>"$work/exp.err" && ok || bad "the faulted run's file does not read: $(cat "$work/exp.err")"
    python3 - "$work/f.csv" "$never" "$late" "$stale" "$clean" <<'PY' && ok || bad "the faulted cells"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
never, late, stale, clean = sys.argv[2:6]
def cell(mode, family):
    got = [r for r in rows if "/".join((r["host_mem"], r["xfer"], r["launch"], r["ctrl"])) == mode and r["family"] == family]
    assert len(got) == 1, (mode, family, len(got))
    return got[0]
for mode in (never, late):
    r = cell(mode, "latency")
    assert r["status"] == "failed" and "trial 0: no reply within 2 s" in r["reason"], (mode, r["status"], r["reason"])
r = cell(stale, "latency")
assert r["status"] == "failed" and "trial 0: stale reply: sequence 17 expected 18" in r["reason"], r["reason"]
assert cell(clean, "latency")["status"] == "ok", cell(clean, "latency")["reason"]
assert all(r["run_label"].startswith("FAULTS INJECTED (") for r in rows), rows[0]["run_label"]
PY
    "$rb" report --no-render "$work/f.h5" -o "$work/rep" >/dev/null 2>"$work/err" && ok || bad "report of the faulted run: $(cat "$work/err")"
    # The failed cells come first: before the report's first section, each with its reason.
    head=$(sed -n '1,/^## /p' "$work/rep/report.md")
    echo "$head" | grep -q "FAILED CELLS" && echo "$head" | grep -q "latency $never 8 B: .*no reply within 2 s" &&
        echo "$head" | grep -q "latency $stale 8 B: .*stale reply: sequence 17 expected 18" &&
        echo "$head" | grep -q "FAULTS INJECTED" && ok || bad "report.md does not list the failed cells first: $(echo "$head" | head -30)"
    if [ "$have_sqlite" = ON ]; then
        expect 2 track "$work/f.h5" --history "$work/hist"
        grep -q "FAULTS INJECTED" "$work/err" && ok || bad "track does not say why it refuses: $(cat "$work/err")"
    fi
    for spec in "" "never" "all=sometimes" "pinned/async=never" "all=never," "=stale"; do
        expect 2 run "${tiny[@]}" --inject-fault "$spec" -o "$work/bad.h5"
    done
    ;;
interrupt)
    command -v gnuplot >/dev/null || { echo "SKIPPED: no gnuplot (the report's long part)"; exit 77; }
    "$rb" run "${tiny[@]}" -o "$work/a.h5" >/dev/null 2>"$work/err" || { bad "tiny run: $(tail -2 "$work/err")"; exit 1; }
    "$rb" report "$work/a.h5" -o "$work/rep" >/dev/null 2>&1 || bad "first report"
    before=$(snapshot "$work/rep")
    for sig in TERM INT; do
        for wait in 0.3 0.8; do
            "$rb" report "$work/a.h5" -o "$work/rep" >/dev/null 2>"$work/err" &
            pid=$!
            sleep $wait
            kill -$sig $pid
            wait $pid
            st=$?
            if [ $st -eq 0 ]; then
                echo "note: the report finished within $wait s: not interrupted"
                before=$(snapshot "$work/rep")
                continue
            fi
            [ $st -eq 1 ] && grep -q "interrupted" "$work/err" && ok || bad "SIG$sig after $wait s: exit $st: $(cat "$work/err")"
            [ "$(snapshot "$work/rep")" = "$before" ] && ok || bad "SIG$sig after $wait s changed the report before"
            no_leftovers "$work"
            pgrep -P $pid >/dev/null && bad "a child of the report still runs" || ok
            pgrep -f "gnuplot .*\.gp" -u "$(id -u)" | xargs -r ps -o args= -p | grep -q "$work" && bad "gnuplot still runs" || ok
        done
    done
    "$rb" report "$work/a.h5" -o "$work/rep" >/dev/null 2>&1 &
    pid=$!
    sleep 0.5
    kill -KILL $pid
    wait $pid 2>/dev/null
    sleep 0.3
    ps -eo args= | grep "^gnuplot" | grep -q "$work" && bad "gnuplot outlived a killed report" || ok
    "$rb" report --no-render "$work/a.h5" -o "$work/rep" >/dev/null 2>"$work/err" && ok || bad "report after a killed one: $(cat "$work/err")"
    no_leftovers "$work"
    ;;
*)
    echo "io_cli.sh: unknown case $what" >&2
    exit 2
    ;;
esac
echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
