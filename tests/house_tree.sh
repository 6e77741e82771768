#!/bin/sh
# house_tree.sh - what the tree may hold (CTest test_house_readme_lines, _no_patch, _scripts_used,
# _data_budget). The lab stays out of the product (docs/decisions/0090-lab-leaves-the-tree.md).
#
#   tests/house_tree.sh readme_lines SOURCE_DIR   README.md is a front door: at most 250 lines
#   tests/house_tree.sh no_patch SOURCE_DIR       git tracks no .patch or .diff (an experiment against
#                                                 the product belongs in git history, not beside it)
#   tests/house_tree.sh scripts_used SOURCE_DIR   every .py and .sh is run by a test, a CMake or make
#                                                 target (named outside a comment in CMakeLists.txt, a
#                                                 *.cmake, the Makefile or .ci/run), or by a script
#                                                 that is
#   tests/house_tree.sh data_budget SOURCE_DIR    committed data lives only in results/reference/ and
#                                                 tests/fixtures/, each file named in its folder's
#                                                 README, at most 20 MiB together; every tracked file
#                                                 together at most 25 MiB
#
# Exit 0 kept, 1 broken (each offence on stderr), 2 a usage error, 77 (skipped) for the rules that read
# git's list when SOURCE_DIR is not the top of a git checkout (a copy without .git, as a GPU machine gets).
set -u
rule=${1:-} src=${2:-.}
cd "$src" || exit 2
readme_max=250
data_max_mib=20
tracked_max_mib=25
data_dirs='results/reference tests/fixtures'
# What counts as data wherever it sits: run files, tables, archives, images, logs.
data_ext='h5|hdf5|csv|dat|tsv|gz|tgz|xz|zst|zip|tar|sqlite|db|npy|parquet|png|svg|jpg|log'

fail() {
    echo "house_tree $rule: $1" >&2
    shift
    for l in "$@"; do echo "  $l" >&2; done
    exit 1
}

# The tracked files present in the tree, one per line, or exit 77 where SOURCE_DIR is not the top of its own git checkout.
tracked() {
    command -v git >/dev/null 2>&1 || { echo "house_tree $rule: no git here; skipped" >&2; exit 77; }
    top=$(git rev-parse --show-toplevel 2>/dev/null) || {
        echo "house_tree $rule: not a git checkout; skipped" >&2; exit 77; }
    [ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ] || {
        echo "house_tree $rule: not the top of its git checkout; skipped" >&2; exit 77; }
    # Only what is in the tree: a file deleted but not yet staged is not there, and a copy whose .git
    # is older than its files (a GPU machine's copy can be) must not be judged by files it no longer has.
    git ls-files | while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done
}

readme_lines() {
    [ -f README.md ] || fail "no README.md"
    n=$(wc -l <README.md)
    [ "$n" -le $readme_max ] || fail "README.md has $n lines, over $readme_max: it is a front door; move detail to docs/"
    echo "house_tree readme_lines: README.md has $n lines (at most $readme_max)"
}

no_patch() {
    list=$(tracked) || exit $?
    bad=$(printf '%s\n' "$list" | grep -E '\.(patch|diff)$')
    [ -z "$bad" ] || fail "patches are tracked (git history keeps an experiment; a decision record says what it taught):" $bad
    echo "house_tree no_patch: no patch tracked"
}

scripts_used() {
    scripts=$(find . \( -name 'build*' -o -name .git \) -prune -o -type f \( -name '*.py' -o -name '*.sh' \) -print |
              sed 's#^\./##' | sort)
    roots=$(find . \( -name 'build*' -o -name .git \) -prune -o -type f \
            \( -name CMakeLists.txt -o -name '*.cmake' -o -name Makefile -o -path ./.ci/run \) -print)
    # A script is used when a root names it; then the scripts it names are used too, until nothing new.
    used=$(mktemp) && printf '%s\n' $roots >"$used" || exit 2
    trap 'rm -f "$used"' EXIT
    while :; do
        grow=0
        for s in $scripts; do
            grep -qxF "./$s" "$used" && continue
            # Named outside a comment by a used file other than itself.
            if grep -vxF "./$s" "$used" | xargs awk -v b="${s##*/}" '{ sub(/(^|[ \t])#.*/, "") }
                    index($0, b) { found = 1; exit } END { exit !found }' 2>/dev/null; then
                echo "./$s" >>"$used"
                grow=1
            fi
        done
        [ $grow -eq 1 ] || break
    done
    unused=""
    for s in $scripts; do
        grep -qxF "./$s" "$used" || unused="$unused $s"
    done
    [ -z "$unused" ] || fail "scripts that no test, CMake or make target runs (delete them: git history keeps them):" $unused
    echo "house_tree scripts_used: each of $(echo "$scripts" | wc -l) scripts is run by a test or a target"
}

data_budget() {
    list=$(tracked) || exit $?
    mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
    # Sizes of the tracked files present in the work tree (a file deleted but not committed is gone).
    sizes=$(printf '%s\n' "$list" | while IFS= read -r f; do [ -f "$f" ] && printf '%s %s\n' "$(wc -c <"$f")" "$f"; done)
    total=$(printf '%s\n' "$sizes" | awk '{ s += $1 } END { printf "%d", s }')
    data=$(printf '%s\n' "$sizes" | awk -v dirs="$data_dirs" '
        BEGIN { n = split(dirs, d, " ") }
        { for (i = 1; i <= n; i++) if (index($2, d[i] "/") == 1) s += $1 } END { printf "%d", s }')
    offences=$(
        for d in $data_dirs; do
            printf '%s\n' "$list" | grep "^$d/" | grep -v "^$d/README.md\$" | while IFS= read -r f; do
                grep -qF "\`${f#$d/}\`" "$d/README.md" 2>/dev/null || echo "$f: not named in $d/README.md with what reads it"
            done
        done
        printf '%s\n' "$list" | grep -E "\.($data_ext)\$" | grep -vE "^(results/reference|tests/fixtures)/" |
            sed 's#$#: data outside results/reference/ and tests/fixtures/#'
        [ "$data" -le $((data_max_mib * 1048576)) ] ||
            echo "results/reference/ and tests/fixtures/ hold $(mib "$data") MiB, over $data_max_mib"
        [ "$total" -le $((tracked_max_mib * 1048576)) ] ||
            echo "the tracked files hold $(mib "$total") MiB, over $tracked_max_mib"
    )
    if [ -n "$offences" ]; then
        echo "house_tree data_budget: committed data over its budget or without a reader:" >&2
        printf '%s\n' "$offences" | sed 's/^/  /' >&2
        exit 1
    fi
    echo "house_tree data_budget: $(mib "$data") MiB of data (at most $data_max_mib), $(mib "$total") MiB tracked (at most $tracked_max_mib), every data file named in its folder's README"
}

case $rule in
readme_lines | no_patch | scripts_used | data_budget) $rule ;;
*) echo "usage: house_tree.sh readme_lines|no_patch|scripts_used|data_budget SOURCE_DIR" >&2; exit 2 ;;
esac
