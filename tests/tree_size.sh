#!/bin/sh
# tree_size.sh - the tracked tree must stay small enough to travel to the GPU machine (CTest
# test_house_tree_size). Every GPU measurement this project quotes runs over a copy of the working tree,
# and that copy may be at most 64 MiB; the committed record (results/data/) grows with every series, and
# at 63.4 MiB of tracked bytes (65.1 MiB on disk) the copy was refused. So the tracked files' bytes must
# stay under RINGBENCH_TREE_MAX_MIB (default 58: room for block overhead and untracked sources).
#
#   tests/tree_size.sh SOURCE_DIR
#
# Exit 0 under the limit, 1 over it (with the largest files and the way out), 77 when SOURCE_DIR is not the
# top of a git checkout with tracked files, or git is missing (the GPU machine's copy has no .git).
set -u
src=${1:-.}
max=${RINGBENCH_TREE_MAX_MIB:-58}
command -v git >/dev/null 2>&1 || { echo "tree_size: no git here; skipped"; exit 77; }
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) || { echo "tree_size: $src is not a git checkout; skipped"; exit 77; }
# A copy without its own .git inside some other repository (the GPU machine's) is not this checkout.
[ "$(cd "$top" && pwd -P)" = "$(cd "$src" && pwd -P)" ] || { echo "tree_size: $src is not the top of its git checkout; skipped"; exit 77; }
list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
# Size of every tracked file present in the work tree, in bytes (a file deleted but not yet committed
# does not travel).
(cd "$src" && git ls-files -z | xargs -0 -r stat -c '%s %n' 2>/dev/null) >"$list"
[ -s "$list" ] || { echo "tree_size: git lists no tracked file under $src; skipped"; exit 77; }
total=$(awk '{ s += $1 } END { printf "%d", s }' "$list")
limit=$((max * 1048576))
mib=$(awk -v t="$total" 'BEGIN { printf "%.1f", t / 1048576 }')
if [ "$total" -gt "$limit" ]; then
    echo "tree_size: the tracked files hold $mib MiB, over the $max MiB that leave the GPU machine's 64 MiB copy room." >&2
    echo "tree_size: the largest:" >&2
    sort -rn "$list" | head -8 | awk '{ printf "  %6.1f MiB  %s\n", $1 / 1048576, $2 }' >&2
    echo "tree_size: commit run files in one commit and remove them from the tree in the next, citing it (results/data/README.md)." >&2
    exit 1
fi
echo "tree_size: $mib MiB tracked, under $max MiB"
