#!/bin/sh
# modes_doc.sh - the README's table of mode axes is generated from harness/modes.c, which documents
# every axis value once; this script writes it and checks it (CTest test_house_modes_doc).
#
#   tests/modes_doc.sh RINGBENCH README.md           fail (exit 1) when the README's table differs
#   tests/modes_doc.sh RINGBENCH README.md --write   rewrite the table in place
#
# The table sits between the two marker lines below; it is made from `ringbench list modes`, which
# prints each value's documentation from modes.c, so the compiler's copy and the README's are one.
set -u
rb=$1 readme=$2 mode=${3:-check}
begin='<!-- modes table: generated from harness/modes.c by tests/modes_doc.sh --write; do not edit -->'
end='<!-- end of modes table -->'
[ -x "$rb" ] && [ -f "$readme" ] || { echo "usage: modes_doc.sh RINGBENCH README.md [--write]" >&2; exit 2; }
grep -qxF "$begin" "$readme" && grep -qxF "$end" "$readme" || {
    echo "modes_doc: $readme has no generated modes table (marker lines missing)" >&2; exit 1; }

table=$(mktemp) && new=$(mktemp) || exit 2
trap 'rm -f "$table" "$new"' EXIT
{
    echo '| axis | value | meaning |'
    echo '| --- | --- | --- |'
    "$rb" list modes | awk '/^Combinations/ { exit }
        /^  [a-z]/ { axis = $1; value = $2; sub(/^ *[^ ]+ +[^ ]+ +/, "");
                     printf "| %s | `%s` | %s |\n", (axis == last ? " " : "`" axis "`"), value, $0; last = axis }'
} >"$table"
[ "$(wc -l <"$table")" -gt 2 ] || { echo "modes_doc: '$rb list modes' printed no axis values" >&2; exit 2; }

awk -v b="$begin" -v e="$end" -v t="$table" '
    $0 == b { print; while ((getline line < t) > 0) print line; skip = 1; next }
    $0 == e { skip = 0 }
    !skip' "$readme" >"$new"

if [ "$mode" = --write ]; then
    cat "$new" >"$readme" && echo "modes_doc: wrote the modes table of $readme"
elif cmp -s "$new" "$readme"; then
    echo "modes_doc: the README's modes table matches harness/modes.c"
else
    echo "modes_doc: the README's modes table differs from harness/modes.c (tests/modes_doc.sh RINGBENCH README.md --write):" >&2
    diff "$readme" "$new" >&2
    exit 1
fi
