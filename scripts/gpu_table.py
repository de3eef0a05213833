#!/usr/bin/env python3
"""Rewrites the table of runs measured on our own GPU in docs/validation.md (between the lines
"<!-- gpu table -->" and "<!-- end gpu table -->") from tests/validation/gpu_measured.json and the
errors the core gives, as the unit tests print them (test_validation.cpp, "measured on our GPU").
The doc test (tests/docs/check_readme.py) checks every row's error against the core again.
usage: scripts/gpu_table.py build/tests/vramcalc_tests"""
import os, sys

from table_rows import printed_errors, replace_between, root, rows_of

rows = rows_of("gpu_measured.json")
printed = printed_errors(sys.argv[1], "measured on our GPU")
lines = ["| Row | Job (vramcalc fields) | Measured | vramcalc | Error |", "|---|---|---:|---:|---:|"]
for r in rows:
    ours, err = printed[r["id"]]
    job = ", ".join(f"{k} {v}" for k, v in r["job"].items())
    miss = " (known miss)" if "known_miss" in r else ""
    sign = f"{err:+.2f}".replace("-", "−")
    lines.append(f"| {r['id']} | {r['model']}: {job} | {r['expected'] / 2**30:.2f} GiB | {ours / 2**30:.2f} GiB | "
                 f"{sign} %{miss} |")
doc = os.path.join(root, "docs", "validation.md")
replace_between(doc, "<!-- gpu table -->\n", "<!-- end gpu table -->", lines)
print(f"{doc}: {len(rows)} rows")
