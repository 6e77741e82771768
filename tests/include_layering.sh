#!/bin/sh
# include_layering.sh - includes go one way, bench -> plots -> harness -> results | kernels, never back up
# (CTest test_house_include_layering). A file may include the headers of its own folder and of the
# folders below it; results/ and kernels/ are both at the bottom and include neither each other nor
# anything above. tests/ may include anything.
#
#   tests/include_layering.sh SOURCE_DIR
#
# Each #include "NAME" is resolved by the folder that holds NAME (or NAME.in, a configured header);
# header names are unique across the layered folders, and the check fails if one stops being so.
set -u
src=${1:-.}
cd "$src" || exit 2
folders='kernels results harness plots bench'
map=$(for d in $folders; do
    find "$d" -type f \( -name '*.h' -o -name '*.cuh' -o -name '*.h.in' \) | sed 's#\.in$##' | while read -r h; do
        echo "$(basename "$h") $d"
    done
done | sort)
dups=$(echo "$map" | awk '{ print $1 }' | uniq -d)
[ -z "$dups" ] || { echo "include_layering: header names used in two folders: $dups" >&2; exit 1; }

# One line per include, "FILE FOLDER NAME", judged in one pass against the map.
for d in $folders; do
    find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h.in' \) | sort |
        while read -r f; do
            sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
                while read -r inc; do echo "$f $d $inc"; done
        done
done | awk -v map="$map" '
    BEGIN {
        split("kernels 0 results 0 harness 1 plots 2 bench 3", r, " ")
        for (i = 1; i < 10; i += 2) rank[r[i]] = r[i + 1]
        m = split(map, lines, "\n")
        for (i = 1; i <= m; i++) { split(lines[i], kv, " "); home[kv[1]] = kv[2] }
    }
    {
        n++; name = $3; sub(/.*\//, "", name); to = home[name]
        if (to == "" || to == $2) next   # not a project header, or the same folder
        if (rank[to] >= rank[$2]) {
            printf "FAIL %s includes %s from %s/: %s/ may include only its own folder and those below it " \
                   "(bench -> plots -> harness -> results | kernels)\n", $1, $3, to, $2 > "/dev/stderr"
            bad = 1
        }
    }
    END {
        if (!bad) printf "include_layering: %d includes, none goes up (bench -> plots -> harness -> results | kernels)\n", n
        exit bad
    }'
