#!/usr/bin/env bash
# io_cli.sh - what ringbench does when writing fails, on the CPU reference backend (issue 53).
#
#   io_cli.sh RINGBENCH WORKDIR CASE [HAVE_JANSSON] [HAVE_SQLITE]
#
# stdout   every command that prints (run, report, compare, export, list, probe, track) exits 1 (export
#          2, a file error) with one line naming standard output when stdout is /dev/full or closed
set -u
rb=$1 work=$2 what=$3 have_jansson=${4:-OFF} have_sqlite=${5:-OFF}
rm -rf "$work" && mkdir -p "$work" || exit 1
# shellcheck source=cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# The smallest run: one mode at one size, on a generous wait bound (CI machines run tests side by side).
tiny=(--backend cpu --preset quick --quiet --timeout 60 --sizes 8 --modes host=pinned,xfer=zerocopy,launch=noncoop,ctrl=mapped)

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
*)
    echo "io_cli.sh: unknown case $what" >&2
    exit 2
    ;;
esac
echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
