#!/usr/bin/env python3
"""Prints the serving-engine tables of docs/validation.md from tests/validation/serving.json and the
errors the core gives (the unit test that runs every row prints them), so the doc's figures can be
pasted back after a change; the doc test (CTest `docs`) checks each error.
usage: scripts/serving_table.py [build/tests/vramcalc_tests]"""
import json, os, re, subprocess, sys
from collections import OrderedDict

here = os.path.dirname(os.path.abspath(__file__))
tests = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "build", "tests", "vramcalc_tests")
rows = json.load(open(os.path.join(here, "..", "tests", "validation", "serving.json")))["rows"]
out = subprocess.run([tests, "--test-case=engine accounting*", "--no-version"], capture_output=True, text=True).stdout
printed = {}
for line in out.splitlines():
    m = re.match(r"^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+([+-]\d+\.\d+)%", line)
    if m:
        printed[m.group(1)] = (float(m.group(3)), float(m.group(4)), m.group(5))


def engine_of(r):
    j = r["job"]
    e = j.get("engine", "custom")
    if e == "vllm":
        return "vLLM " + j.get("vllm_version", "newest") + (" " + j["vllm_engine"].upper() if "vllm_engine" in j else "")
    return {"llamacpp": "llama.cpp", "sglang": "SGLang", "ollama": "Ollama"}.get(e, e)


def num(x, unit):
    if unit in ("tokens", "blocks"):
        return f"{x:,.0f}"
    return f"{x:,.2f}"


groups = OrderedDict()
for r in rows:
    groups.setdefault(engine_of(r), []).append(r)
print("| row | model | quantity | measured | vramcalc | error |")
print("|---|---|---|---:|---:|---:|")
for engine, rs in groups.items():
    for r in rs:
        measured, ours, err = printed[r["id"]]
        e = err.replace("-", "−") + " %" + (" (known miss)" if "known_miss" in r else "")
        print(f"| {r['id']} | {r['model']} ({engine}) | {r['quantity']} | {num(measured, r['unit'])} {r['unit']} | "
              f"{num(ours, r['unit'])} {r['unit']} | {e} |")
print()
for r in rows:
    if "known_miss" in r:
        err = printed[r["id"]][2].replace("-", "−")
        print(f"- {r['id']} ({err} %): {r['known_miss']}")
print()
sources = OrderedDict()
for r in rows:
    sources.setdefault(r["source"], []).append(r["id"])
for s, ids in sources.items():
    print(f"- {s}: {', '.join(ids) if len(ids) < 6 else ids[0] + ' … ' + ids[-1] + f' ({len(ids)} rows)'}")
