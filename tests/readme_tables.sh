#!/bin/sh
# readme_tables.sh - the README's generated tables: the mode axes (from harness/modes.c, which documents
# every axis value once, through `ringbench list modes`) and the commands (from bench/main.c's dispatch
# table, through `ringbench --help`). This script writes them and checks them (CTest
# test_house_modes_doc and test_house_commands_doc).
#
#   tests/readme_tables.sh RINGBENCH README.md modes|commands           exit 1 when the README's table differs
#   tests/readme_tables.sh RINGBENCH README.md modes|commands --write   rewrite the table in place
#
# Each table sits between its two marker lines below, so the compiler's copy and the README's are one.
set -u
rb=${1:-} readme=${2:-} which=${3:-} mode=${4:-check}
[ -x "$rb" ] && [ -f "$readme" ] || { echo "usage: readme_tables.sh RINGBENCH README.md modes|commands [--write]" >&2; exit 2; }
case $which in
modes)
    begin='<!-- modes table: generated from harness/modes.c by tests/readme_tables.sh --write; do not edit -->'
    end='<!-- end of modes table -->'
    source='harness/modes.c' ;;
commands)
    begin='<!-- commands table: generated from bench/main.c by tests/readme_tables.sh --write; do not edit -->'
    end='<!-- end of commands table -->'
    source='bench/main.c' ;;
*)
    echo "usage: readme_tables.sh RINGBENCH README.md modes|commands [--write]" >&2; exit 2 ;;
esac
grep -qxF "$begin" "$readme" && grep -qxF "$end" "$readme" || {
    echo "readme_tables: $readme has no generated $which table (marker lines missing)" >&2; exit 1; }

table=$(mktemp) && new=$(mktemp) || exit 2
trap 'rm -f "$table" "$new"' EXIT
if [ "$which" = modes ]; then
    echo '| axis | value | meaning |'
    echo '| --- | --- | --- |'
    "$rb" list modes | awk '/^Combinations/ { exit }
        /^  [a-z]/ { axis = $1; value = $2; sub(/^ *[^ ]+ +[^ ]+ +/, "");
                     printf "| %s | `%s` | %s |\n", (axis == last ? " " : "`" axis "`"), value, $0; last = axis }'
else
    echo '| command | what it does |'
    echo '| --- | --- |'
    "$rb" --help | awk '/^commands:/ { on = 1; next } /^[^ ]/ { on = 0 }
        on && /^  [a-z]/ { name = $1; sub(/^ *[^ ]+ +/, ""); printf "| `ringbench %s` | %s |\n", name, $0 }'
fi >"$table"
[ "$(wc -l <"$table")" -gt 2 ] || { echo "readme_tables: '$rb' printed no $which" >&2; exit 2; }

awk -v b="$begin" -v e="$end" -v t="$table" '
    $0 == b { print; while ((getline line < t) > 0) print line; skip = 1; next }
    $0 == e { skip = 0 }
    !skip' "$readme" >"$new"

if [ "$mode" = --write ]; then
    cat "$new" >"$readme" && echo "readme_tables: wrote the $which table of $readme"
elif cmp -s "$new" "$readme"; then
    echo "readme_tables: the README's $which table matches $source"
else
    echo "readme_tables: the README's $which table differs from $source (tests/readme_tables.sh RINGBENCH README.md $which --write):" >&2
    diff "$readme" "$new" >&2
    exit 1
fi
