# cli_lib.sh - what the command-line test scripts share (sourced by cli_test.sh and track_cli.sh):
# the pass/fail counters and `expect`. The sourcing script sets rb (the ringbench binary) and work
# (its scratch directory) first.
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*"; }

# expect STATUS ARGS...: runs ringbench, checks the exit status and that stderr is one line.
expect() {
    local want=$1; shift
    "$rb" "$@" >"$work/out" 2>"$work/err"
    local got=$? lines
    lines=$(wc -l <"$work/err")
    if [ "$got" -ne "$want" ]; then
        bad "ringbench $* -> exit $got, wanted $want; stderr: $(head -c 300 "$work/err")"
    elif [ "$want" -eq 2 ] && [ "$lines" -ne 1 ]; then
        bad "ringbench $* -> $lines lines on stderr, wanted one: $(head -c 300 "$work/err")"
    else
        ok
    fi
}
