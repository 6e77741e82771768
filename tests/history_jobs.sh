#!/usr/bin/env bash
# history_jobs.sh - one history, several `ringbench track` jobs at once or killed half-way (issue 53),
# on tiny CPU-backend runs made once by the test. After every round history_check (history_check.c)
# reads the folder and its index as the jobs left them: every run stored exactly once, the index and
# the folder agree, nothing left behind.
#
#   history_jobs.sh RINGBENCH HISTORY_CHECK MAKE_ROWS WORKDIR concurrent|kill [ROUNDS]
#
# concurrent  ROUNDS (20) rounds of three cases, 4 jobs at once each: the same file (twice under
#             another name) into a history; 4 different files into a history; 4 different files into
#             a history that does not exist yet. Every job exits 0 or 1 (never 2, never a signal) and
#             says nothing of a damaged index, an existing table or a failed constraint; the history
#             holds each run once (2, 5 and 4 runs).
# kill        ROUNDS (40) rounds: two jobs at once, one adding a new run and killed (SIGKILL and SIGTERM
#             in turn) after a random delay, at its copy-in, in an index transaction or while it writes
#             the page (a quarter each), the other adding a new run or one of a pool (tiny runs and one
#             of 20 000 rows); a job ended by SIGTERM removes what it was writing
#             itself (no .incoming-*, *.tmp* or journal once both jobs are done); then one more job,
#             after which the history is whole: no run of a job that finished lost, none doubled,
#             nothing a killed job left behind.
set -u
rb=$1 check=$2 make_rows=$3 work=$4 what=$5
rm -rf "$work" && mkdir -p "$work" || exit 1
# shellcheck source=cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

tiny=(--backend cpu --preset quick --quiet --timeout 60 --sizes 8 --modes host=pinned,xfer=zerocopy,launch=noncoop,ctrl=mapped)
runs=()
for i in 0 1 2 3 4 5; do
    "$rb" run "${tiny[@]}" -o "$work/r$i.h5" >/dev/null 2>"$work/run.err" ||
        { echo "FAIL: the tiny run failed: $(tail -3 "$work/run.err")"; exit 1; }
    runs+=("$work/r$i.h5")
done
cp "$work/r1.h5" "$work/r1-again.h5" # the same bytes under another name
if [ "$what" = kill ]; then
    "$make_rows" "$work/m.h5" 20000 >/dev/null || { echo "FAIL: make_rows"; exit 1; }
    runs+=("$work/m.h5")
fi

# whole DIR WHY [FILE...]: history_check finds DIR whole and holding every FILE.
whole() {
    local dir=$1 why=$2
    shift 2
    if "$check" "$dir" "$@" >"$work/check" 2>&1; then
        ok
        return 0
    fi
    bad "$why: $(grep -v '^runs' "$work/check" | head -5 | tr '\n' ' ') ($(tail -1 "$work/check"))"
    return 1
}

# jobs DIR FILE...: one `track FILE --history DIR` per FILE, all at once; each must exit 0 or 1 and say
# nothing of what overlapping jobs used to break. Returns 1 when one did not.
jobs_at_once() {
    local dir=$1 i=0 pids=() st rc=0
    shift
    for f in "$@"; do
        "$rb" track "$f" --history "$dir" >/dev/null 2>"$work/job$i.err" &
        pids+=($!)
        i=$((i + 1))
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}"
        st=$?
        if [ $st -gt 1 ]; then
            bad "track $(basename "${*:$((i + 1)):1}") exited $st: $(grep -v 'CPU REFERENCE\|WARNING' "$work/job$i.err" | head -3 | tr '\n' ' ')"
            rc=1
        elif grep -qE "damaged|already exists|UNIQUE|not an error|disk I/O|locked|busy" "$work/job$i.err"; then
            bad "track said: $(grep -E "damaged|already exists|UNIQUE|not an error|disk I/O|locked|busy" "$work/job$i.err" | head -2 | tr '\n' ' ')"
            rc=1
        else
            ok
        fi
    done
    return $rc
}

# count_runs DIR WANT WHY: the history holds WANT runs.
count_runs() {
    local got
    got=$(awk '/^runs/ { print $2 }' "$work/check")
    [ "$got" = "$2" ] && ok && return 0
    bad "$3: $got runs, wanted $2"
    return 1
}

# one_case H NAME WANT FILE...: FILE... tracked into H at once; then H holds WANT runs, every FILE among
# them, and is whole. Returns 1 when a check failed.
one_case() {
    local h=$1 name=$2 want=$3 before=$fails
    shift 3
    jobs_at_once "$h" "$@"
    whole "$h" "$name" "$@"
    count_runs "$h" "$want" "$name"
    [ $fails -eq $before ]
}

concurrent() {
    local rounds=${1:-20} failed_same=0 failed_diff=0 failed_new=0 h=$work/h t0=$SECONDS
    for round in $(seq "$rounds"); do
        rm -rf "$h" && "$rb" track "$work/r0.h5" --history "$h" --no-page >/dev/null 2>&1 || bad "seed track"
        one_case "$h" "same file, round $round" 2 "$work/r1.h5" "$work/r1-again.h5" "$work/r1.h5" "$work/r1-again.h5" ||
            failed_same=$((failed_same + 1))
        rm -rf "$h" && "$rb" track "$work/r0.h5" --history "$h" --no-page >/dev/null 2>&1 || bad "seed track"
        one_case "$h" "different files, round $round" 5 "${runs[@]:1:4}" || failed_diff=$((failed_diff + 1))
        rm -rf "$h"
        one_case "$h" "new history, round $round" 4 "${runs[@]:1:4}" || failed_new=$((failed_new + 1))
    done
    echo "rounds failed of $rounds: same file $failed_same, different files $failed_diff, new history $failed_new" \
        "($((SECONDS - t0)) s)"
}

# fresh NAME ROUND: a run no history holds yet: a tiny run padded past its end (which HDF5 ignores) with
# 10 MB and the round's number, so that its copy-in and content key take long enough to be hit.
fresh() {
    cp "${runs[$(($2 % 6))]}" "$work/$1" && head -c 10000000 /dev/zero >>"$work/$1" && echo "$2" >>"$work/$1"
}

# at WHEN H PID: whether job PID on H is at WHEN: "copy" (its .incoming-PID.h5 is there), "index" (it
# holds the lock and the index's journal is there: a transaction), "page" (its history.md.tmp-PID).
at() {
    case $1 in
    copy) [ -e "$2/.incoming-$3.h5" ] ;;
    index) [ -e "$2/index.sqlite-journal" ] && [ "$(cat "$2/.lock" 2>/dev/null)" = "$3" ] ;;
    page) [ -e "$2/history.md.tmp-$3" ] ;;
    *) return 1 ;;
    esac
}

# kill_round H SIG WHEN ROUND: two jobs at once, one (a new run) killed by SIG after a random delay
# (WHEN random) or as soon as it is at WHEN; the other adds a new run or one of the pool (which may be
# in H already). Then one more job, after which H must be whole.
kill_round() {
    local h=$1 sig=$2 when=$3 round=$4 n=${#runs[@]} a b c pa pb st
    fresh "a$round.h5" "$round" && a=$work/a$round.h5
    if [ $((RANDOM % 2)) -eq 0 ]; then fresh "b$round.h5" "$((round + 1))" && b=$work/b$round.h5; else b=${runs[$((RANDOM % n))]}; fi
    c=${runs[$((RANDOM % n))]}
    "$rb" track "$a" --history "$h" >/dev/null 2>"$work/ka.err" &
    pa=$!
    "$rb" track "$b" --history "$h" >/dev/null 2>"$work/kb.err" &
    pb=$!
    if [ "$when" = random ]; then
        sleep "0.$(printf '%03d' $((RANDOM % 300)))"
    else
        until at "$when" "$h" $pa || ! kill -0 $pa 2>/dev/null; do :; done
        at "$when" "$h" $pa && hits[$when]=$((${hits[$when]:-0} + 1))
    fi
    kill -s "$sig" $pa 2>/dev/null
    { wait $pa; } 2>/dev/null # without the shell's "Killed" line
    st=$?
    wait $pb
    [ $? -le 1 ] && finished+=("$b") && ok || bad "round $round: the job not killed failed: $(tail -2 "$work/kb.err")"
    [ $st -le 1 ] && finished+=("$a")
    case $st in
    0 | 1) ended[0]=$((ended[0] + 1)) ;;
    2) ended[1]=$((ended[1] + 1)) ;;
    *) ended[2]=$((ended[2] + 1)) ;;
    esac
    if [ "$sig" = TERM ]; then
        local left
        left=$(find "$h" -name ".incoming-*" -o -name "*.tmp*" -o -name "*-journal" | head -3 | tr '\n' ' ')
        [ -z "$left" ] && ok || bad "round $round: a job ended by SIGTERM (exit $st) at $when left $left"
    fi
    "$rb" track "$c" --history "$h" >/dev/null 2>"$work/kc.err"
    st=$?
    cat "$work/kb.err" "$work/kc.err" | grep -q "removed .* left in" && ended[3]=$((ended[3] + 1))
    [ $st -le 1 ] && finished+=("$c") && ok || bad "round $round: the job after the kill exited $st: $(tail -2 "$work/kc.err")"
    whole "$h" "after a SIG$sig at $when, round $round" "${finished[@]}"
}

# ROUNDS rounds, SIGTERM and SIGKILL in turn, at a random time, then at the copy-in, in an index
# transaction and while the page is written, in turn; on a history started again every 5 rounds
# (the new runs are 10 MB each).
kill_rounds() {
    local rounds=${1:-40} h=$work/hk t0=$SECONDS before=$fails whens=(random copy index page)
    ended=(0 0 0 0)
    declare -gA hits=()
    for round in $(seq "$rounds"); do
        if [ $((round % 5)) -eq 1 ]; then
            rm -rf "$h" "$work"/[ab][0-9]*.h5
            finished=()
        fi
        kill_round "$h" "$([ $((round % 2)) -eq 0 ] && echo KILL || echo TERM)" "${whens[$(((round - 1) / 2 % 4))]}" "$round"
    done
    echo "kill: $rounds rounds, $((fails - before)) checks failed ($((SECONDS - t0)) s); killed at the copy-in" \
        "${hits[copy]:-0}, in an index transaction ${hits[index]:-0}, writing the page ${hits[page]:-0} times (of" \
        "$((rounds / 4)) each); the killed job finished first ${ended[0]}, stopped itself (exit 2) ${ended[1]}," \
        "died of the signal ${ended[2]}; a later job removed leftovers ${ended[3]} times"
}

case $what in
concurrent) concurrent "${6:-20}" ;;
kill) kill_rounds "${6:-40}" ;;
*) echo "history_jobs.sh: unknown case $what" >&2; exit 2 ;;
esac
echo "$checks checks, $fails failed"
[ $fails -eq 0 ]
