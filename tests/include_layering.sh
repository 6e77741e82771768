#!/bin/sh
# include_layering.sh - includes go one way, bench -> plots -> harness -> results | kernels, never back up
# (CTest test_house_include_layering). A file may include the headers of its own folder and of the
# folders below it; results/ and kernels/ are both at the bottom and include neither each other nor
# anything above (so harness/ never includes plots/ or bench/). tests/ may include anything.
# The history's database stays behind the typed calls of results/history.h: outside results/history*.c
# no file includes a database client header (sqlite3.h, libpq-fe.h), calls or names SQLite or libpq,
# or holds an SQL statement.
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

db=$(for d in $folders; do
    find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h.in' \)
done | grep -v '^results/history' | sort | xargs grep -nE \
    '#[[:space:]]*include[[:space:]]*<(sqlite3|libpq-fe)\.h>|\bsqlite3_?[a-z_]*\b|\bPQ[a-z]+\(|"[[:space:]]*(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|BEGIN|COMMIT)[[:space:]]')
if [ -n "$db" ]; then
    echo "$db" | sed 's/^/FAIL (the history database outside results\/history*.c: use the typed calls of history.h) /' >&2
    exit 1
fi

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
        if (!bad) printf "include_layering: %d includes, none goes up (bench -> plots -> harness -> results | kernels); the history database only in results/history*.c\n", n
        exit bad
    }'
