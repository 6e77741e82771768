#!/bin/sh
# calibrate.sh - the nightly job's false-alarm rate and detection power, measured on a real series.
#
#   bench/nightly/calibrate.sh RINGBENCH SERIES_DIR OUT_DIR [TRACK_ARGS...]
#
# SERIES_DIR holds runs of one build on one machine (q*.h5, tracked in name order, as nights) and runs
# with a documented slowdown (slow-*.h5; tests/gpu_session.sh step 'series' makes both). Each q run is
# tracked into a fresh history OUT_DIR/history, as `make nightly` would; then each slow run is tracked
# against a copy of that history (so one never becomes the other's baseline). Every night's track output
# is kept (OUT_DIR/track-<run>.txt) and OUT_DIR/calibration.md sums it up: per night the exit status,
# regressions, improvements and watch counts; the red nights of the series (exit 1 with nothing
# changed: false alarms); and for each slowdown whether it exited 1 and which cells it named.
set -u
rb=$1 series=$2 out=$3
shift 3
[ -x "$rb" ] && [ -d "$series" ] || { echo "usage: calibrate.sh RINGBENCH SERIES_DIR OUT_DIR [TRACK_ARGS...]" >&2; exit 2; }
rm -rf "$out/history" "$out/history-slow" && mkdir -p "$out" || exit 2
md=$out/calibration.md
count() { grep -m1 "^$1" "$2" | sed 's/[^0-9]*\([0-9]*\).*/\1/'; }
{
    echo "# Nightly calibration: \`$(basename "$series")\`"
    echo
    echo "\`bench/nightly/calibrate.sh\` with track options \`${*:-(defaults)}\`."
    echo
    echo "| night | run | exit | regressions | improvements | watch | machine shift |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
} >"$md"
nights=0 judged=0 red=0
for f in "$series"/q*.h5; do
    name=$(basename "$f" .h5)
    "$rb" track "$f" --history "$out/history" --no-page "$@" >"$out/track-$name.txt" 2>&1
    st=$?
    nights=$((nights + 1))
    t=$out/track-$name.txt
    if grep -q "^REGRESSIONS" "$t" && ! grep -q "not judged" "$t"; then judged=$((judged + 1)); fi
    [ $st -eq 1 ] && red=$((red + 1))
    shift_line=$(sed -n 's/^machine shift tonight: \([^ ]*\).*/\1/p' "$t")
    echo "| $nights | $name | $st | $(count REGRESSIONS "$t") | $(count improvements "$t") | $(count watch "$t") | ${shift_line:--} |" >>"$md"
done
{
    echo
    echo "**Series: $red red nights of $judged judged ($nights runs; a night is judged once its cells have enough history).**"
    echo
    echo "| slowdown | exit | regressions | regressed cells |"
    echo "| --- | --- | --- | --- |"
} >>"$md"
for f in "$series"/slow-*.h5; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .h5)
    rm -rf "$out/history-slow" && cp -r "$out/history" "$out/history-slow"
    "$rb" track "$f" --history "$out/history-slow" --no-page "$@" >"$out/track-$name.txt" 2>&1
    st=$?
    t=$out/track-$name.txt
    # a cell's name runs up to its change (a pooled one's size has a space: "throughput_procs/native-best/8 B")
    cells=$(sed -n '/^REGRESSIONS/,/^improvements/p' "$t" | awk '/^  [a-z]/ {
        k = 2; while (k < NF && $k !~ /^[+-][0-9.]+%$/) k++
        name = $1; for (i = 2; i < k; i++) name = name " " $i
        printf "%s`%s` %s", sep, name, $k; sep = ", " }')
    echo "| $name | $st | $(count REGRESSIONS "$t") | ${cells:--} |" >>"$md"
done
rm -rf "$out/history-slow"
cat "$md"
