#!/usr/bin/env bash
# fleet_cli.sh - a history shared by many machines, end to end: `ringbench track` into a folder
# history (sqlite) or into a database on a throwaway PostgreSQL server of its own (pg,
# tests/pg_cluster.sh), the same cases on both where they apply.
#
#   fleet_cli.sh RINGBENCH NIGHTS WORKDIR sqlite|pg HAVE_LIBPQ
#
# NIGHTS holds tests/fleet_fixture.c's nights 1..10 of two machines of one GPU, one native and one
# WSL2, whose control-block read steps up 1.6x from night 5 beside a WSL2 driver change.
#   concurrent  four ingests at once, two nights of each machine: exactly four runs, two machines (a
#               folder history without the single-host lock, DIR/.lock, takes them one after the other)
#   twice       the same file again, under another name, and twice at once: stored once
#   page        eight nights of each: --page DIR names both machines, shows the cross-platform ratio
#               and reports its regression with the driver change beside it (exit 1); plots PNG + SVG
#   list        one line per run with machine, platform, GPU, driver, start, commit and a verdict
#   alike       (pg) the same nights in a folder history: a night judged there prints the same
#   real        two real CPU runs, one in a mount and UTS namespace whose kernel reads as WSL2 (unshare:
#               root, or a user namespace) with its own host name: two machines, one pair on the page;
#               a --platform-limits wsl2 run is refused (it is not a WSL2 run)
#   store       (pg) --store DIR: the file copied there, host, path and checksum recorded; (sqlite) refused
#   pg only     a database of a newer schema refused with what to do; a password never printed; the
#               server stopped before an ingest (exit 2, the run kept, the printed command retries it)
#               and during one; an ingest killed inside its transaction: nothing of it stays
# Without the server programs the pg case skips (77), loudly; under CI=true it fails instead (.ci/run
# installs them). Label: unit.
set -u
rb=$1 nights=$2 work=$3 backend=$4 have_libpq=${5:-OFF}
rm -rf "$work" && mkdir -p "$work" || exit 1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh
. "$here/cli_lib.sh"
# shellcheck source=pg_cluster.sh
. "$here/pg_cluster.sh"
export XDG_STATE_HOME=$work/state # the machine's own run store of a database history
night() { echo "$nights/fleet-$1.h5"; }

skip() {
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $* (CI must run this test: .ci/run installs what it needs)"
        exit 1
    fi
    echo "SKIPPED: $*"
    exit 77
}

case $backend in
sqlite) H=$work/history ;;
pg)
    [ "$have_libpq" = ON ] || skip "this ringbench was built without libpq (apt-get install libpq-dev, re-run cmake)"
    pg_start
    rc=$?
    [ $rc -ne 77 ] || skip "no PostgreSQL server programs (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/*/bin: apt-get install postgresql"
    [ $rc -eq 0 ] || { echo "FAIL: cannot start a PostgreSQL server for the test"; exit 1; }
    H=$PG_URI
    ;;
*) echo "usage: fleet_cli.sh RINGBENCH NIGHTS WORKDIR sqlite|pg HAVE_LIBPQ" && exit 2 ;;
esac
[ -f "$(night native-010)" ] || { echo "FAIL: no nights in $nights (tests/fleet_fixture.c)"; exit 1; }

# The runs of history $1 by --list (header left out).
listed() { "$rb" track --history "$1" --list 2>"$work/list.err" | tail -n +2; }
nruns() { listed "$1" | wc -l; }
track() { "$rb" track "$@" --no-page >>"$work/track.out" 2>>"$work/track.err"; }

# --- four concurrent ingests from two machines ----------------------------------------------------------
# A database's schema is made by whichever ingest comes first. A folder history is made first: two jobs
# creating one at once, and writers that overlap at all, are the single-host lock's case (DIR/.lock, its
# own tests); a folder without one takes the four one after the other, and says so.
at_once=1
if [ "$backend" = sqlite ]; then
    "$rb" track --history "$H" --no-page >/dev/null 2>&1
    [ -e "$H/.lock" ] || { at_once=0 && echo "note: this folder history has no lock (DIR/.lock): its four ingests run one after the other"; }
fi
pids=""
for f in native-001 wsl-001 native-002 wsl-002; do
    "$rb" track "$(night $f)" --history "$H" --no-page >"$work/c-$f.out" 2>"$work/c-$f.err" &
    pids="$pids $!"
    [ $at_once = 1 ] || { wait $! && echo 0 || echo $?; } >"$work/c-$f.rc"
done
for p in $pids; do
    [ $at_once = 1 ] || continue
    wait "$p"
    rc=$?
    [ $rc -le 1 ] && ok || bad "a concurrent ingest exited $rc: $(cat "$work"/c-*.err | head -c 600)"
done
for f in native-001 wsl-001 native-002 wsl-002; do
    [ $at_once = 0 ] || continue
    [ "$(cat "$work/c-$f.rc")" -le 1 ] && ok || bad "ingest of $f exited $(cat "$work/c-$f.rc"): $(cat "$work/c-$f.err")"
done
n=$(nruns "$H")
[ "$n" -eq 4 ] && ok || bad "four concurrent ingests left $n runs: $(listed "$H")"
[ "$(listed "$H" | grep -c '^fleet-native ')" -eq 2 ] && [ "$(listed "$H" | grep -c '^fleet-wsl .* wsl2 ')" -eq 2 ] \
    && ok || bad "not two runs of each machine: $(listed "$H")"
if [ "$backend" = pg ]; then
    [ "$(pg_sql "SELECT count(*) FROM ringbench.runs")" = 4 ] && [ "$(pg_sql "SELECT count(*) FROM ringbench.machines")" = 2 ] \
        && ok || bad "the database holds $(pg_sql "SELECT count(*) FROM ringbench.runs") runs of $(pg_sql "SELECT count(*) FROM ringbench.machines") machines"
fi

# --- the same file twice ----------------------------------------------------------------------------------
"$rb" track "$(night native-001)" --history "$H" --no-page >/dev/null 2>"$work/err"
grep -q "already in" "$work/err" && [ "$(nruns "$H")" -eq 4 ] && ok || bad "the same file again: $(cat "$work/err")"
cp "$(night native-001)" "$work/renamed-copy.h5"
"$rb" track "$work/renamed-copy.h5" --history "$H" --no-page >/dev/null 2>"$work/err"
grep -q "already in" "$work/err" && [ "$(nruns "$H")" -eq 4 ] && ok || bad "the same bytes under another name: $(cat "$work/err")"
# One file twice at once: the database's unique key decides; a folder history's lock.
if [ $at_once = 1 ]; then
    track "$(night native-003)" --history "$H" &
    p1=$!
    track "$(night native-003)" --history "$H" &
    p2=$!
    wait $p1
    r1=$?
    wait $p2
    r2=$?
    [ $r1 -le 1 ] && [ $r2 -le 1 ] && [ "$(nruns "$H")" -eq 5 ] && ok \
        || bad "one file twice at once: exits $r1 $r2, $(nruns "$H") runs (want 5): $(tail -3 "$work/track.err")"
else
    track "$(night native-003)" --history "$H"
fi

# --- eight nights of each machine, the fleet page ---------------------------------------------------------
for k in 003 004 005 006 007 008; do
    for m in native wsl; do
        [ "$m$k" = native003 ] && continue
        track "$(night $m-$k)" --history "$H"
        [ $? -le 1 ] && ok || bad "ingest of $m-$k: $(tail -2 "$work/track.err")"
    done
done
[ "$(nruns "$H")" -eq 16 ] && ok || bad "16 nights ingested, $(nruns "$H") runs listed"
"$rb" track --history "$H" --page "$work/page" >"$work/page.out" 2>"$work/page.err"
rc=$?
md=$work/page/fleet.md
[ $rc -eq 1 ] && grep -q "REGRESSION of a cross-platform ratio" "$work/page.out" && ok \
    || bad "--page: exit $rc (want 1: the ratio regressed): $(cat "$work/page.out" "$work/page.err" | head -c 600)"
grep -q "fleet-native · native · NVIDIA GeForce RTX 4090" "$md" && grep -q "fleet-wsl · WSL2 · NVIDIA GeForce RTX 4090" "$md" \
    && ok || bad "the page does not name both machines: $(head -12 "$md")"
grep -q "^## WSL2 over native, same GPU" "$md" && grep -q "^### fleet-wsl .* over fleet-native" "$md" && ok \
    || bad "the page has no cross-platform pair"
grep -Eq '^\| control-block read \| 2026-08-08 \| \*\*2\.7[0-9]×\*\* \[2\.[0-9]+×, 2\.[0-9]+×\] \| \+60\.0 % .* \| regression \|$' "$md" \
    && ok || bad "the control-block read's ratio and its regression: $(grep 'control-block read |' "$md" | head -2)"
grep -Eq '^\| round trip 8 B \| 2026-08-08 \| \*\*[0-9.]+×\*\* .* \| unchanged \|$' "$md" && ok \
    || bad "the round trip's ratio, unchanged: $(grep '^| round trip 8 B |' "$md" | head -2)"
grep -q "^\*\*REGRESSION\*\* of the WSL2 / native ratio of control-block read: .*first seen on 2026-08-05; beside: WSL2 driver 581.15 -> 591.44\.$" "$md" \
    && ok || bad "the regression is not named with its driver change: $(grep -n REGRESSION "$md")"
[ "$(grep -c 'REGRESSION\*\* of the WSL2' "$md")" -eq 1 ] && ok || bad "another ratio than the control-block read's called"
for stem in fleet_pair0_rt fleet_pair0_cb fleet_m0_rt fleet_m1_cb; do
    [ -s "$work/page/plots/$stem.dat" ] && [ -s "$work/page/plots/$stem.gp" ] && ok || bad "no $stem data or script"
    if command -v gnuplot >/dev/null 2>&1; then
        [ -s "$work/page/plots/$stem.png" ] && [ -s "$work/page/plots/$stem.svg" ] && ok || bad "no $stem.png / .svg"
    fi
done

# --- the list -----------------------------------------------------------------------------------------------
"$rb" track --history "$H" --list >"$work/list" 2>"$work/err"
rc=$?
head -1 "$work/list" | grep -q '^machine  *platform  *GPU  *driver  *start (UTC)  *commit  *verdict$' && ok \
    || bad "--list header: $(head -1 "$work/list")"
[ $rc -eq 0 ] && [ "$(tail -n +2 "$work/list" | wc -l)" -eq 16 ] && ! grep -q "no verdict stored" "$work/list" && ok \
    || bad "--list: exit $rc, $(tail -n +2 "$work/list" | wc -l) lines: $(cat "$work/list" "$work/err" | head -c 800)"
grep -Eq '^fleet-wsl +wsl2 +NVIDIA GeForce RTX 4090 +591\.44 +2026-08-08T03:00:00Z +0123456789ab +REGRESSION \([0-9]+ cells\)$' "$work/list" \
    && ok || bad "--list's line of the WSL2 machine's night 8: $(grep 2026-08-08T03 "$work/list")"
grep -Eq '^fleet-native +native +NVIDIA GeForce RTX 4090 +580\.65\.06 +2026-08-01T02:00:00Z +0123456789ab +new machine$' "$work/list" \
    && ok || bad "--list's first line: $(sed -n 2p "$work/list")"
grep -Eq '^fleet-native +native +.* +2026-08-08T02:00:00Z +0123456789ab +OK$' "$work/list" \
    && grep -Eq '^fleet-native +native +.* +2026-08-04T02:00:00Z +0123456789ab +not judged yet$' "$work/list" \
    && ok || bad "--list's words for a green night (OK) and an early one (not judged yet), as track prints them: $(cat "$work/list")"

# --- one night judged alike from either backend ---------------------------------------------------------------
# The same sixteen nights in a folder history: the WSL2 machine's night 8 judged there prints what the
# database's judgement printed (every query of the judging answered alike by both backends).
if [ "$backend" = pg ]; then
    for k in 001 002 003 004 005 006 007 008; do
        for m in native wsl; do track "$(night $m-$k)" --history "$work/folder"; done
    done
    "$rb" track "$(night wsl-008)" --history "$H" --no-page >"$work/night-pg" 2>/dev/null
    "$rb" track "$(night wsl-008)" --history "$work/folder" --no-page >"$work/night-folder" 2>/dev/null
    diff "$work/night-pg" "$work/night-folder" >"$work/night.diff" && grep -q REGRESSION "$work/night-pg" && ok \
        || bad "night 8 judged differently from the database and from a folder: $(head -20 "$work/night.diff")"
fi

# --- two real CPU runs as two machines, one of them WSL2 by its kernel ---------------------------------------
# as_machine HOST native|wsl FILE: a tiny CPU run in a new UTS namespace named HOST, its kernel release
# reading as WSL2's for wsl (bound over /proc/sys/kernel/osrelease in a new mount namespace).
echo "5.15.167.4-microsoft-standard-WSL2" >"$work/osrelease"
as_machine() {
    local ns="unshare -mu"
    [ "$(id -u)" = 0 ] || ns="unshare -Urmu"
    $ns sh -c 'hostname "$1" && { [ "$2" != wsl ] || mount --bind "$3" /proc/sys/kernel/osrelease; } &&
        exec "$4" run --backend cpu --preset quick --quiet --timeout 60 --sizes 8 \
            --modes "host=pinned|malloc,xfer=async|sync,launch=coop|noncoop,ctrl=mapped|device" -o "$5"' \
        sh "$1" "$2" "$work/osrelease" "$rb" "$3" >/dev/null 2>"$work/run-$1.err"
}
if as_machine rb-native-cpu native "$work/native-cpu.h5" && as_machine rb-wsl-cpu wsl "$work/wsl-cpu.h5"; then
    if [ "$backend" = pg ]; then
        pg_sql_db postgres "CREATE DATABASE cpu" >/dev/null
        H2="postgresql:///cpu?host=$PG_SOCK&user=$PG_USER"
    else
        H2=$work/history-cpu
    fi
    track "$work/native-cpu.h5" --history "$H2" && track "$work/wsl-cpu.h5" --history "$H2" && ok \
        || bad "tracking the real runs: $(tail -3 "$work/track.err")"
    listed "$H2" >"$work/list2"
    grep -q '^rb-native-cpu  *native  *CPU backend (no GPU)' "$work/list2" && grep -q '^rb-wsl-cpu  *wsl2  *CPU backend (no GPU)' "$work/list2" \
        && ok || bad "the real runs' machines: $(cat "$work/list2")"
    "$rb" track --history "$H2" --page "$work/page2" >/dev/null 2>"$work/err"
    rc=$?
    [ $rc -le 1 ] && grep -q "^### rb-wsl-cpu · WSL2 · CPU backend over rb-native-cpu · native · CPU backend" "$work/page2/fleet.md" \
        && grep -Eq '^\| round trip 8 B \| [0-9-]+ \| \*\*[0-9.]+×\*\* ' "$work/page2/fleet.md" && ok \
        || bad "the real runs' page: exit $rc $(cat "$work/err"): $(grep -A3 '^### ' "$work/page2/fleet.md")"
else
    echo "note: no new UTS and mount namespace here (unshare: $(cat "$work"/run-*.err 2>/dev/null | head -c 200)): the real-run case is not run"
fi
"$rb" run --backend cpu --preset quick --quiet --timeout 60 --sizes 8 --platform-limits wsl2 \
    --modes "host=malloc,xfer=sync,launch=noncoop,ctrl=device" -o "$work/limits.h5" >/dev/null 2>&1
expect 2 track "$work/limits.h5" --history "$H"
grep -q "LIMITS APPLIED (wsl2), not a wsl2 run.*kept out of the history" "$work/err" && ok \
    || bad "a --platform-limits run is refused: $(cat "$work/err")"

if [ "$backend" = sqlite ]; then
    expect 2 track "$(night wsl-010)" --history "$H" --store "$work/shared"
    grep -q "^ringbench track: --store is for a database history" "$work/err" && ok || bad "--store on a folder: $(cat "$work/err")"
    echo "fleet_cli ($backend): $checks checks, $fails failed (the database's own cases: pg)"
    [ $fails -eq 0 ]
    exit
fi

# --- PostgreSQL only -----------------------------------------------------------------------------------------
count() { pg_sql "SELECT count(*) FROM ringbench.runs"; }
keyed() { pg_sql "SELECT count(*) FROM ringbench.runs WHERE run_key = '$(sha256sum "$1" | cut -c1-64)'"; }

# --store DIR: the run file copied there, its host, path and checksum recorded.
track "$(night wsl-010)" --history "$H" --store "$work/shared"
row=$(pg_sql "SELECT stored_on || ' ' || stored_path || ' ' || run_key FROM ringbench.runs WHERE file = 'fleet-wsl-010.h5'")
[ "$row" = "$(hostname) $work/shared/fleet-wsl-010.h5 $(sha256sum "$work/shared/fleet-wsl-010.h5" | cut -c1-64)" ] \
    && cmp -s "$work/shared/fleet-wsl-010.h5" "$(night wsl-010)" && ok || bad "--store: the record is '$row'"
[ -f "$XDG_STATE_HOME/ringbench/runs/fleet-native-001.h5" ] && ok || bad "no run in the machine's own store"

# A database of a newer schema: refused, with what to do; nothing written.
pg_sql "UPDATE ringbench.meta SET value = '99' WHERE key = 'schema_version'" >/dev/null
expect 2 track "$(night native-009)" --history "$H"
grep -q "schema is version 99, newer than this ringbench knows (1): update ringbench" "$work/err" && [ "$(keyed "$(night native-009)")" = 0 ] \
    && ok || bad "a newer schema: $(cat "$work/err")"
pg_sql "UPDATE ringbench.meta SET value = '1' WHERE key = 'schema_version'" >/dev/null

# A password, in the URI or among its parameters, is never printed.
for uri in "postgresql://$PG_USER:s3cr3t-pw@/ringbench?host=$PG_SOCK" "postgres:///ringbench?host=$PG_SOCK&user=$PG_USER&password=s3cr3t-pw"; do
    "$rb" track --history "$uri" >"$work/out" 2>"$work/err" && grep -q "\*\*\*" "$work/out" && ! grep -q s3cr3t "$work/out" "$work/err" \
        && ok || bad "a password printed or the URI refused: $(cat "$work/out" "$work/err")"
done
pg_down
"$rb" track "$(night native-009)" --history "postgresql://$PG_USER:s3cr3t-pw@/ringbench?host=$PG_SOCK" >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 2 ] && ! grep -q s3cr3t "$work/out" "$work/err" && grep -q "$PG_USER:\*\*\*@" "$work/err" && ok \
    || bad "a password in the error or the command to retry: exit $rc: $(cat "$work/err")"

# The server stopped before the ingest: one line, exit 2, the run file kept, the command to retry.
expect 2 track "$(night native-009)" --history "$H"
line=$(cat "$work/err")
case $line in
*"cannot reach the history postgresql:///ringbench?host=$PG_SOCK&user=$PG_USER: "*"; $(night native-009) is kept: retry with: ringbench track "*) ok ;;
*) bad "the server down: $line" ;;
esac
[ -f "$(night native-009)" ] && ok || bad "the run file is gone"
pg_up
retry=${line#*retry with: ringbench }
eval "\"\$rb\" $retry" >/dev/null 2>"$work/err"
rc=$?
[ $rc -le 1 ] && [ "$(keyed "$(night native-009)")" = 1 ] && ok || bad "the printed command did not retry: exit $rc: $retry: $(cat "$work/err")"

# blocked_ingest FILE: starts `track FILE` in the background while another session holds the headline
# table, so that the ingest waits inside its transaction (its run and cells written, not committed);
# returns once it waits, its pid in $ingest.
blocked_ingest() {
    pg_sql_db ringbench "BEGIN; LOCK TABLE ringbench.headlines IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120)" >/dev/null 2>&1 &
    locker=$!
    for _ in $(seq 100); do
        [ "$(pg_sql "SELECT count(*) FROM pg_locks WHERE relation = 'ringbench.headlines'::regclass AND granted")" -ge 1 ] && break
        sleep 0.1
    done
    "$rb" track "$1" --history "$H" --no-page >"$work/blocked.out" 2>"$work/blocked.err" &
    ingest=$!
    for _ in $(seq 300); do
        [ "$(pg_sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ringbench' AND wait_event_type = 'Lock'")" -ge 1 ] && return 0
        sleep 0.1
    done
    return 1
}
release() {
    pg_sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120)%' AND pid <> pg_backend_pid()" >/dev/null 2>&1
    wait "$locker" 2>/dev/null
    for _ in $(seq 100); do # the killed ingest's backend ends when it finds its client gone
        [ "$(pg_sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ringbench'")" = 0 ] && return
        sleep 0.1
    done
}

# An ingest killed inside its transaction: nothing of it stays, and it can be done again.
before=$(count)
if blocked_ingest "$(night wsl-009)"; then
    kill -9 "$ingest"
    wait "$ingest" 2>/dev/null
    release
    [ "$(count)" = "$before" ] && [ "$(keyed "$(night wsl-009)")" = 0 ] \
        && [ "$(pg_sql "SELECT count(*) FROM ringbench.cells c WHERE NOT EXISTS (SELECT 1 FROM ringbench.runs r WHERE r.run_id = c.run_id)")" = 0 ] \
        && ok || bad "a killed ingest left something: $(count) runs (was $before)"
    track "$(night wsl-009)" --history "$H"
    [ $? -le 1 ] && [ "$(keyed "$(night wsl-009)")" = 1 ] && ok || bad "the killed ingest again: $(tail -2 "$work/track.err")"
else
    bad "the ingest never waited on the lock: $(cat "$work/blocked.err")"
    release
fi

# The server stopped during an ingest: exit 2 with the command to retry, nothing half-written, the retry works.
before=$(count)
if blocked_ingest "$(night native-010)"; then
    pg_down
    wait "$ingest"
    rc=$?
    pg_up
    release
    [ $rc -eq 2 ] && [ "$(wc -l <"$work/blocked.err")" -eq 1 ] && grep -q "retry with: ringbench track" "$work/blocked.err" \
        && ok || bad "the server stopped mid-ingest: exit $rc: $(cat "$work/blocked.err")"
    [ "$(count)" = "$before" ] && [ "$(keyed "$(night native-010)")" = 0 ] && ok || bad "half an ingest stayed: $(count) runs"
    retry=$(sed 's/.*retry with: ringbench //' "$work/blocked.err")
    eval "\"\$rb\" $retry" >/dev/null 2>"$work/err"
    rc=$?
    [ $rc -le 1 ] && [ "$(keyed "$(night native-010)")" = 1 ] && ok || bad "the retry after a stop: exit $rc: $(cat "$work/err")"
else
    bad "the ingest never waited on the lock: $(cat "$work/blocked.err")"
    release
fi

echo "fleet_cli ($backend): $checks checks, $fails failed"
[ $fails -eq 0 ]
