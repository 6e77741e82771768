#!/bin/sh
# comment_paths.sh - a comment that names a repository path (a test file, a harness header, a glob such
# as plots/track*.c) must name one that exists, so a reader who follows it lands somewhere (CTest
# test_house_comment_paths).
#
#   tests/comment_paths.sh SOURCE_DIR
#
# Looks at the comments of every *.c *.h *.cu *.cmake *.sh and CMakeLists.txt under SOURCE_DIR (not in
# build directories): /* */ and // in C and CUDA (string literals are skipped: a data path in a help
# text, such as results/runs/, is not a comment), # in CMake and shell. A path starts with one of the
# top-level folders; a glob (plots/track*.c) must match at least one file. Paths that runs create and
# git ignores (results/runs/) are listed below.
set -u
src=${1:-.}
cd "$src" || exit 2
generated='results/runs'

files=$(find . \( -name 'build*' -o -name '.git' \) -prune -o -type f \
        \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cmake' -o -name '*.sh' -o -name CMakeLists.txt \) \
        -print | sed 's#^\./##' | sort)
[ -n "$files" ] || { echo "comment_paths: no source files under $src" >&2; exit 2; }

# Prints "FILE:LINE: PATH" for every path-like word inside a comment.
refs=$(for f in $files; do
    case $f in
    *.c | *.h | *.cu) lang=c ;;
    *) lang=hash ;;
    esac
    awk -v f="$f" -v lang="$lang" '
    function scan(text,   t, m) {
        t = text
        while (match(t, /(^|[^A-Za-z0-9_.\/<>$@{-])(kernels|harness|bench|results|plots|tests|\.ci)\/[A-Za-z0-9_.*\/-]*/)) {
            m = substr(t, RSTART, RLENGTH)
            sub(/^[^A-Za-z.]/, "", m)
            sub(/[.]+$/, "", m)
            print f ":" FNR ": " m
            t = substr(t, RSTART + RLENGTH)
        }
    }
    lang == "hash" {
        if (match($0, /(^|[ \t])#/)) scan(substr($0, RSTART))
        next
    }
    {
        line = $0; out = ""; i = 1; n = length(line)
        while (i <= n) {
            c = substr(line, i, 1); d = substr(line, i, 2)
            if (incomment) {
                if (d == "*/") { incomment = 0; i += 2; continue }
                out = out c; i++; continue
            }
            if (instr) {
                if (c == "\\") { i += 2; continue }
                if (c == q) instr = 0
                i++; continue
            }
            if (d == "/*") { incomment = 1; out = out " "; i += 2; continue }
            if (d == "//") { out = out " " substr(line, i + 2); break }
            if (c == "\"" || c == "'\''") { instr = 1; q = c }
            i++
        }
        instr = 0
        if (out != "") scan(out)
    }' "$f"
done)

bad=0
echo "$refs" | while IFS= read -r r; do
    [ -n "$r" ] || continue
    p=${r##*: }
    p=${p%/}
    for g in $generated; do
        case $p in "$g" | "$g"/*) continue 2 ;; esac
    done
    # A glob names an existing file when it expands to one; a plain path must exist as it is.
    found=no
    for m in $p; do
        [ -e "$m" ] && found=yes && break
    done
    [ $found = yes ] || { echo "$r: no such path"; }
done >"${TMPDIR:-/tmp}/comment_paths.$$"
if [ -s "${TMPDIR:-/tmp}/comment_paths.$$" ]; then
    echo "comment_paths: comments name paths that do not exist (fix the comment, or the path):" >&2
    cat "${TMPDIR:-/tmp}/comment_paths.$$" >&2
    bad=1
else
    echo "comment_paths: every path named in a comment exists ($(echo "$refs" | grep -c .) references)"
fi
rm -f "${TMPDIR:-/tmp}/comment_paths.$$"
exit $bad
