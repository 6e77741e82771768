#!/bin/sh
# function_length.sh - no function in a non-test .c or .cu file is longer than 80 lines (STYLE 7), except
# those listed in tests/function_length.allow (CTest test_house_function_length).
#
#   tests/function_length.sh SOURCE_DIR [LIMIT]
#
# A function's length runs from the line of its name to its closing brace (tests/function_lengths.awk).
# It fails on a function over LIMIT lines (default 80) that the allowlist does not name, and on an
# allowlist entry that no longer needs to be there (the function shrank, moved or was renamed), so the
# list only ever shrinks. Allowlist lines: "FILE FUNCTION" (paths from SOURCE_DIR), '#' comments.
set -u
src=${1:-.} limit=${2:-80}
here=$(cd "$(dirname "$0")" && pwd)
cd "$src" || exit 2
allow=tests/function_length.allow
[ -f "$allow" ] || { echo "function_length: $src/$allow is missing" >&2; exit 2; }

files=$(find . \( -name 'build*' -o -name '.git' -o -path ./tests \) -prune -o -type f \( -name '*.c' -o -name '*.cu' \) \
        -print | sed 's#^\./##' | sort)
long=$(echo "$files" | xargs awk -f "$here/function_lengths.awk" | awk -v l="$limit" '$3 > l' | sort)
listed=$(grep -v '^[[:space:]]*#' "$allow" | awk 'NF >= 2 { print $1, $2 }' | sort)

bad=0
echo "$long" | while read -r f fn n; do
    [ -n "$f" ] || continue
    if echo "$listed" | grep -qxF "$f $fn"; then
        echo "function_length: $f: $fn is $n lines (allowed, listed in $allow)"
    else
        echo "FAIL $f: $fn is $n lines, over $limit: split it along its seams, or (one linear acquire/cleanup sequence) list it in $allow"
    fi
done >/tmp/function_length.$$
echo "$listed" | while read -r f fn; do
    [ -n "$f" ] || continue
    echo "$long" | awk '{ print $1, $2 }' | grep -qxF "$f $fn" ||
        echo "FAIL $allow: '$f $fn' is no longer over $limit lines (or no longer there): remove the line"
done >>/tmp/function_length.$$
cat /tmp/function_length.$$
grep -q '^FAIL' /tmp/function_length.$$ && bad=1
rm -f /tmp/function_length.$$
[ $bad -eq 0 ] && echo "function_length: no function over $limit lines outside the allowlist"
exit $bad
