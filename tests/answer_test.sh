#!/bin/sh
# answer_test.sh - README.md's answer table is exactly what `ringbench report REF --answer` prints on the
# committed reference run (CTest test_readme_answer, label unit). The table sits between the lines
# <!-- answer:begin --> and <!-- answer:end -->; when the two differ, this prints the difference and
# the command that writes the block again.
#
#   tests/answer_test.sh RINGBENCH README.md REFERENCE.h5 [--write]
#
# --write replaces the block with the command's output (what to run after the reference run changes).
set -u
rb=$1 readme=$2 ref=$3 mode=${4:-}
[ -f "$ref" ] || { echo "FAIL: the reference run $ref is missing (RINGBENCH_REFERENCE_RUN in CMakeLists.txt names it)"; exit 1; }
grep -q '^<!-- answer:begin -->$' "$readme" && grep -q '^<!-- answer:end -->$' "$readme" ||
    { echo "FAIL: $readme has no <!-- answer:begin --> ... <!-- answer:end --> block"; exit 1; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$rb" report "$ref" --answer >"$tmp/want" 2>"$tmp/err" || { echo "FAIL: ringbench report --answer: $(tail -1 "$tmp/err")"; exit 1; }
awk '/^<!-- answer:end -->$/ { inside = 0 } inside { print } /^<!-- answer:begin -->$/ { inside = 1 }' "$readme" >"$tmp/got"
if [ "$mode" = "--write" ]; then
    awk -v want="$tmp/want" '
        /^<!-- answer:begin -->$/ { print; while ((getline line < want) > 0) print line; skip = 1; next }
        /^<!-- answer:end -->$/ { skip = 0 }
        !skip { print }' "$readme" >"$tmp/readme" && cat "$tmp/readme" >"$readme" && echo "wrote the answer into $readme"
    exit $?
fi
if cmp -s "$tmp/want" "$tmp/got"; then
    echo "answer_test: README.md's answer table is the output of ringbench report $ref --answer"
    exit 0
fi
echo "FAIL: README.md's answer table differs from ringbench report $ref --answer (< README, > command):"
diff "$tmp/got" "$tmp/want"
echo "To write it again: sh tests/answer_test.sh build/bench/ringbench README.md $ref --write"
exit 1
