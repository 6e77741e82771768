#!/usr/bin/env bash
# export_stream.sh - `ringbench export` of a file of 30 000 rows made by make_rows (issue 53), in every
# format: every row exported once and in order, the rows that lie (p50 NaN, every 1 000th) marked damaged
# with their reason, one run_id and commit on every CSV row and the provenance once (joined on run_id), the
# same bytes to stdout as to -o, BMF one benchmark per ok row; an interrupted export leaves the one before
# and no temporary file.
#
#   export_stream.sh RINGBENCH MAKE_ROWS WORKDIR [HAVE_JANSSON]
set -u
rb=$1 make_rows=$2 work=$3 have_jansson=${4:-OFF}
rm -rf "$work" && mkdir -p "$work" || exit 1
# shellcheck source=cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"
n=30000
"$make_rows" "$work/big.h5" $n 1000 || { echo "FAIL: make_rows"; exit 1; }

"$rb" export "$work/big.h5" --format csv -o "$work/big.csv" 2>"$work/err" && ok || bad "export csv: $(tail -2 "$work/err")"
[ "$(grep -c "WARNING: .*p50 is nan" "$work/err")" -eq 29 ] && ok || bad "stderr does not name the 29 lying rows: $(head -3 "$work/err")"
"$rb" export "$work/big.h5" --format csv 2>/dev/null | cmp -s - "$work/big.csv" && ok || bad "stdout and -o differ"
"$rb" export "$work/big.h5" --format provenance -o "$work/prov.csv" 2>/dev/null && ok || bad "export provenance"
python3 - "$work/big.csv" "$work/prov.csv" $n <<'PY' && ok || bad "the CSV export"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = int(sys.argv[3])
assert len(rows) == n, len(rows)
assert [int(r["row_id"]) for r in rows] == list(range(n)), "rows out of order or missing"
damaged = [int(r["row_id"]) for r in rows if r["status"] == "damaged"]
assert damaged == list(range(1000, n, 1000)), damaged[:5]
assert all("p50 is nan" in rows[i]["reason"] for i in damaged)
assert len({r["run_id"] for r in rows}) == 1 and len(rows[0]["run_id"]) == 16
assert {r["commit"] for r in rows} == {"0123456789abcdef0123456789abcdef01234567"}
prov = list(csv.DictReader(open(sys.argv[2])))
assert {p["run_id"] for p in prov} == {rows[0]["run_id"]}
named = {(p["group"], p["name"]): p["value"] for p in prov}
assert named[("/provenance", "hostname")] == "make-rows" and named[("/", "cells_rows")] == str(n), named
PY
if [ "$have_jansson" = ON ]; then
    "$rb" export "$work/big.h5" --format json -o "$work/big.json" 2>/dev/null && ok || bad "export json"
    "$rb" export "$work/big.h5" --format bmf -o "$work/big.bmf" 2>/dev/null && ok || bad "export bmf"
    python3 - "$work/big.json" "$work/big.bmf" $n <<'PY' && ok || bad "the JSON and BMF exports"
import json, sys
doc = json.load(open(sys.argv[1]))
n = int(sys.argv[3])
assert doc["tool"] == "ringbench" and doc["complete"] == 1 and len(doc["rows"]) == n
assert [r["row_id"] for r in doc["rows"]] == list(range(n))
assert all(r["run_id"] == doc["run_id"] for r in doc["rows"])
assert sum(r["status"] == "damaged" for r in doc["rows"]) == 29
bmf = json.load(open(sys.argv[2]))
assert len(bmf) == n - 29, len(bmf)
assert all(set(m) == {"latency"} for m in bmf.values())
PY
fi
# An interrupted export (SIGINT, SIGTERM) leaves the export before as it was and no temporary file.
before=$(md5sum <"$work/big.csv")
for sig in INT TERM; do
    "$rb" export "$work/big.h5" --format csv -o "$work/big.csv" 2>"$work/err" &
    pid=$!
    sleep 0.3
    kill -$sig $pid
    wait $pid
    st=$?
    if [ $st -eq 0 ]; then
        echo "note: the export finished within 0.3 s: not interrupted"
    else
        [ $st -eq 1 ] && grep -q "interrupted" "$work/err" && ok || bad "SIG$sig: exit $st: $(cat "$work/err")"
    fi
    [ "$(md5sum <"$work/big.csv")" = "$before" ] && ok || bad "SIG$sig changed the export before"
    [ -z "$(find "$work" -name '*.tmp-*')" ] && ok || bad "SIG$sig left $(find "$work" -name '*.tmp-*')"
done
echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
