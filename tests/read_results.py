#!/usr/bin/env python3
"""read_results.py - reads a ringbench results file with h5py, as docs/schema.md shows users.

Usage: read_results.py FILE.h5 SCHEMA_H

Checks that /cells has a column for every field of rb_row (taken from results/schema.h, the one
definition), decodes the text columns, loads one row's samples and prints a summary. Exits 0 when
all is as docs/schema.md says, 1 otherwise, 77 (skipped) when h5py is not installed.
"""
import os
import re
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)


def row_fields(schema_h):
    """The field names of struct rb_row, in order, from schema.h."""
    text = open(schema_h, encoding="utf-8").read()
    body = re.search(r"typedef struct rb_row \{(.*?)\} rb_row;", text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    # The calls_<name> fields are generated from results/call_kinds.h (one double per kind, in order).
    kinds_h = os.path.join(os.path.dirname(schema_h), "call_kinds.h")
    kinds = re.findall(r"X\(A, *\w+, *(\w+), *\"", open(kinds_h, encoding="utf-8").read())
    calls = "double " + ", ".join("calls_" + k for k in kinds) + ";"
    body = re.sub(r"#define RB_ROW_CALLS_FIELD.*?#undef RB_ROW_CALLS_FIELD", calls, body, flags=re.S)
    fields = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        # "double min, p50, ..." or "char backend[RB_NAME_LEN]"
        names = decl.split(None, 1)[1]
        fields += [re.sub(r"\[.*\]", "", n).strip() for n in names.split(",")]
    return fields


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    path, schema_h = sys.argv[1], sys.argv[2]
    failures = []

    with h5py.File(path, "r") as f:
        root = dict(f.attrs)
        tool = root["tool"].decode() if isinstance(root["tool"], bytes) else root["tool"]
        if tool != "ringbench":
            failures.append(f"tool is {tool!r}")
        print(f"{path}: schema {int(root['schema_version'])}, complete {int(root['complete'])}")

        cells = f["/cells"][...]  # numpy structured array, one record per row
        want = row_fields(schema_h)
        have = list(cells.dtype.names)
        missing = [c for c in want if c not in have]
        if missing:
            failures.append(f"/cells lacks columns {missing}")
        if have != want:
            failures.append(f"/cells columns {have} are not rb_row's {want}")

        # Fixed-length strings come back as bytes: decode them to text.
        text_cols = [c for c in have if cells.dtype[c].kind == "S"]
        rows = [{c: (r[c].decode("utf-8", "replace") if c in text_cols else r[c].item())
                 for c in have} for r in cells]
        units = {k[5:]: v.decode() for k, v in f["/cells"].attrs.items() if k.startswith("unit_")}
        for c in have:
            if c not in text_cols and c not in units:
                failures.append(f"no unit_{c} attribute on /cells")
        families = f["/cells"].attrs["families"].decode()
        print(f"{len(rows)} rows, {len(have)} columns ({len(text_cols)} text), "
              f"{len(families.splitlines())} families documented")
        for r in rows:
            print(f"  row {r['row_id']}: {r['family']:<20} {r['status']:<12} "
                  f"p50 {r['p50']:.6g} {r['unit']}")

        # The first row with samples: schema 1 and the writer's own rows keep them at
        # /samples/row_NNNNNN; a run (schema 2) keeps every trial's samples in one dataset,
        # /trial_samples, each trial's at [sample_offset, sample_offset + n) in the row's unit.
        def samples_of(r):
            name = f"/samples/row_{r['row_id']:06d}"
            if name in f:
                return f[name][...], f[name].attrs["unit"].decode()
            if "trials" in f:
                t = f["/trials"][...]
                for m in t[(t["cell_id"] == r["cell_id"]) & (t["family"] == r["family"].encode())]:
                    if m["n"] > 0:
                        o = int(m["sample_offset"])
                        return f["/trial_samples"][o:o + int(m["n"])], r["unit"]
            return None
        with_samples = [r for r in rows if samples_of(r) is not None]
        if not with_samples:
            failures.append("no samples dataset")
        else:
            r = with_samples[0]
            s, unit = samples_of(r)
            if s.dtype != np.float64:
                failures.append(f"samples are {s.dtype}, not float64")
            if unit != r["unit"]:
                failures.append(f"samples unit {unit!r} != row unit {r['unit']!r}")
            finite = s[np.isfinite(s)]
            print(f"row {r['row_id']} samples: n={s.size}, median {np.median(finite):.6g} {unit}")

        for g in ("provenance", "capabilities"):
            if g in f:
                print(f"/{g}: {len(f[g].attrs)} attributes")

    for msg in failures:
        print(f"FAIL: {msg}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
