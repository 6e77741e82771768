#!/bin/sh
# house_text.sh - what the product's words may name (CTest test_house_paths and test_house_hashes).
#
#   tests/house_text.sh paths SOURCE_DIR    every path named in a comment, a README or docs/*.md exists,
#                                           and no product file names a removed lab path
#   tests/house_text.sh hashes SOURCE_DIR   no commit hash in a source comment, nor in the README's prose
#                                           beyond its one "Measured at COMMIT" line
#
# Comments are those of every *.c *.h *.cu *.py *.sh *.cmake, CMakeLists.txt, Makefile and .ci/run
# (not in build directories): /* */ and // in C and CUDA (string literals skipped: a data path in a help
# text, such as results/runs/, is not a comment), # elsewhere. A path starts with a top-level folder; a
# glob (plots/track*.c) must match a file; paths that runs create and git ignores are listed below.
# The experiments' records left the tree (docs/decisions/0090-lab-leaves-the-tree.md): a comment cites
# the decision record, never a commit or a lab path. Decision records and CHANGELOG.md tell history, so
# they may name both. Exit 0 clean, 1 with each offence on stderr, 2 on a usage error.
set -u
rule=${1:-} src=${2:-.}
cd "$src" || exit 2
generated='results/runs build'
# Paths of the lab that left the tree, named nowhere in the product (git history keeps them).
removed='results/data results/RESULTS.md results/SCHEMA.md tests/gpu_session.sh tests/hostmem_probe.c
bench/nightly/calibrate.sh plots/noise.py plots/variance.py plots/legrefs.py tests/tree_size.sh
tests/comment_paths.sh tests/modes_doc.sh'

sources=$(find . \( -name 'build*' -o -name .git \) -prune -o -type f \
          \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.py' -o -name '*.sh' -o -name '*.cmake' \
             -o -name CMakeLists.txt -o -name Makefile -o -path ./.ci/run \) -print | sed 's#^\./##' | sort)
[ -n "$sources" ] || { echo "house_text: no source files under $src" >&2; exit 2; }
# Product prose: every README, and docs/ but its decision records.
prose=$(find . \( -name 'build*' -o -name .git -o -path ./docs/decisions \) -prune -o -type f \
        \( -name README.md -o -path './docs/*.md' \) -print | sed 's#^\./##' | sort)

# Prints "FILE:LINE:TEXT" for the comment text of each source line.
comments() {
    for f in $sources; do
        case $f in
        *.c | *.h | *.cu) lang=c ;;
        *) lang=hash ;;
        esac
        awk -v f="$f" -v lang="$lang" '
        lang == "hash" {
            if (match($0, /(^|[ \t])#/)) print f ":" FNR ":" substr($0, RSTART)
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
            if (out != "") print f ":" FNR ":" out
        }' "$f"
    done
}

# Prints "FILE:LINE: PATH" for every path-like word of the "FILE:LINE:TEXT" lines on stdin; a path in
# git history (COMMIT:PATH, as git show takes it) is not one of the tree's.
path_words() {
    awk '{
        i = index($0, ":"); j = index(substr($0, i + 1), ":"); where = substr($0, 1, i + j - 1)
        t = substr($0, i + j + 1)
        gsub(/[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+:[^ `)]+/, "", t)
        while (match(t, /(^|[^A-Za-z0-9_.\/<>$@{-])(kernels|harness|bench|results|plots|tests|docs|\.ci)\/[A-Za-z0-9_.*\/-]*/)) {
            m = substr(t, RSTART, RLENGTH)
            t = substr(t, RSTART + RLENGTH)
            sub(/^[^A-Za-z.]/, "", m)
            if (substr(t, 1, 1) == "{") m = m "*" # a brace list (ringbench-nightly.{service,timer})
            else sub(/[.]+$/, "", m)
            print where ": " m
        }
    }'
}

# Prints "FILE:LINE: TARGET" for every relative link target ](...) of the markdown files named.
md_links() {
    for f in "$@"; do
        awk -v f="$f" '{
            t = $0
            while (match(t, /\]\([^) ]+\)/)) {
                m = substr(t, RSTART + 2, RLENGTH - 3)
                t = substr(t, RSTART + RLENGTH)
                if (m ~ /^(https?:|mailto:|#)/) continue
                sub(/#.*/, "", m)
                print f ":" FNR ": " m
            }
        }' "$f"
    done
}

check_paths() {
    out=$(mktemp) || exit 2
    trap 'rm -f "$out"' EXIT
    {
        comments
        for f in $prose; do awk -v f="$f" '{ print f ":" FNR ":" $0 }' "$f"; done
    } | path_words | while IFS= read -r r; do
        p=${r##*: }
        p=${p%/}
        for g in $generated; do
            case $p in "$g" | "$g"/*) continue 2 ;; esac
        done
        found=no
        for m in $p; do
            [ -e "$m" ] && found=yes && break
        done
        [ $found = yes ] || echo "$r: no such path"
    done >"$out"
    # Relative links of the prose resolve from the file's own folder.
    md_links $prose | while IFS= read -r r; do
        f=${r%%:*} p=${r##*: }
        [ -e "$(dirname "$f")/$p" ] || echo "$r: the link leads nowhere"
    done >>"$out"
    # A removed lab path, anywhere in a product file, except as git history: COMMIT:PATH (git show).
    printf '%s\n' $removed >"$out.removed"
    grep -rnIF -f "$out.removed" --exclude-dir='build*' --exclude-dir=.git --exclude-dir=decisions \
        --exclude=CHANGELOG.md --exclude=house_text.sh . 2>/dev/null |
        sed 's#^\./##' | awk -v list="$out.removed" '
            BEGIN { while ((getline p < list) > 0) removed[p] = 1 }
            { t = $0; gsub(/[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+:[^ `)]+/, "", t)
              for (p in removed) if (index(t, p)) { print substr($0, 1, 160) " (names a removed lab path)"; next } }' \
        >>"$out"
    rm -f "$out.removed"
    if [ -s "$out" ]; then
        echo "house_text paths: these name what does not exist (fix the text, or cite docs/decisions/):" >&2
        cat "$out" >&2
        exit 1
    fi
    echo "house_text paths: every path named in comments and product prose exists, and no lab path is named"
}

# Prints "FILE:LINE: WORD" for every word of 7 to 40 hex digits with a digit and a letter in it (a commit
# hash, not 0x... constants: an x before the digits makes them part of a longer word).
hash_words() {
    awk '{
        i = index($0, ":"); j = index(substr($0, i + 1), ":"); where = substr($0, 1, i + j - 1)
        t = substr($0, i + j + 1)
        n = split(t, w, /[^A-Za-z0-9_]+/)
        for (k = 1; k <= n; k++)
            if (w[k] ~ /^[0-9a-f]+$/ && length(w[k]) >= 7 && length(w[k]) <= 40 && w[k] ~ /[0-9]/ && w[k] ~ /[a-f]/)
                print where ": " w[k]
    }'
}

check_hashes() {
    out=$(mktemp) || exit 2
    trap 'rm -f "$out"' EXIT
    comments | hash_words >"$out"
    # The README may name one commit, on its "Measured at COMMIT" line.
    if [ -f README.md ]; then
        measured=$(grep -c '[Mm]easured at `[0-9a-f]\{7,40\}`' README.md)
        [ "$measured" -le 1 ] || echo "README.md: $measured \"Measured at COMMIT\" lines, at most one" >>"$out"
        awk '!/[Mm]easured at `[0-9a-f]+`/ { print "README.md:" FNR ":" $0 }' README.md | hash_words >>"$out"
    fi
    if [ -s "$out" ]; then
        echo "house_text hashes: commit hashes in comments or the README's prose (cite docs/decisions/NNNN-*.md):" >&2
        cat "$out" >&2
        exit 1
    fi
    echo "house_text hashes: no commit hash in source comments or the README's prose"
}

case $rule in
paths) check_paths ;;
hashes) check_hashes ;;
*) echo "usage: house_text.sh paths|hashes SOURCE_DIR" >&2; exit 2 ;;
esac
