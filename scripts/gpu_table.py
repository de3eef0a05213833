#!/usr/bin/env python3
"""Rewrites the table of runs measured on our own GPU in docs/validation.md (between the lines
"<!-- gpu table -->" and "<!-- end gpu table -->") from tests/validation/gpu_measured.json and the
errors the core gives, as the unit tests print them (test_validation.cpp, "measured on our GPU").
The doc test (tests/docs/check_readme.py) checks every row's error against the core again.
usage: scripts/gpu_table.py build/tests/vramcalc_tests"""
import json, os, re, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..")
rows = json.load(open(os.path.join(root, "tests", "validation", "gpu_measured.json")))["rows"]
out = subprocess.run([sys.argv[1], "-tc=measured on our GPU"], capture_output=True, text=True).stdout
printed = {}
for line in out.splitlines():
    m = re.match(r"^(\S+)\s+\S+\s+(\S+)\s+(\S+)\s+([+-]\d+\.\d+)%", line)
    if m:
        printed[m.group(1)] = (float(m.group(3)), m.group(4))
lines = ["| Row | Job (vramcalc fields) | Measured | vramcalc | Error |", "|---|---|---:|---:|---:|"]
for r in rows:
    ours, err = printed[r["id"]]
    job = ", ".join(f"{k} {v}" for k, v in r["job"].items())
    miss = " (known miss)" if "known_miss" in r else ""
    lines.append(f"| {r['id']} | {r['model']}: {job} | {r['expected'] / 2**30:.2f} GiB | {ours / 2**30:.2f} GiB | "
                 f"{err.replace('-', '−')} %{miss} |")
doc = os.path.join(root, "docs", "validation.md")
text = open(doc, encoding="utf-8").read()
start, end = "<!-- gpu table -->\n", "<!-- end gpu table -->"
a, b = text.index(start) + len(start), text.index(end)
open(doc, "w", encoding="utf-8").write(text[:a] + "\n".join(lines) + "\n" + text[b:])
print(f"{doc}: {len(rows)} rows")
