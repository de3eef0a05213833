#!/usr/bin/env python3
"""The layering of core/: each folder may include only itself and the folders
below it, in the order CMakeLists.txt's VRAMCALC_LAYERS lists them; the CLI's
files at core/'s top (cli.cpp, cli_usage.hpp: named cli*) sit above them all and include each other by name.
Also: every file sits in a listed folder, and no file is
over 400 lines. The page's ES modules (web/) import each other without a
cycle. Prints each violation and exits 1 if there is any.
usage: tests/check_layers.py [repo root]"""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
cmake = open(os.path.join(root, "CMakeLists.txt")).read()
layers = re.search(r"set\(VRAMCALC_LAYERS ([^)]*)\)", cmake).group(1).split()
rank = {name: i for i, name in enumerate(layers)}
core = os.path.join(root, "core")
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
problems, files = [], 0
for folder, _, names in os.walk(core):
    for name in sorted(names):
        if not name.endswith((".cpp", ".hpp")):
            continue
        files += 1
        path = os.path.join(folder, name)
        rel = os.path.relpath(path, core)
        parts = rel.split(os.sep)
        if len(parts) == 1:
            if not rel.startswith("cli"):
                problems.append(f"core/{rel}: outside every layer folder")
            own = len(layers)  # the CLI may include any layer
        elif parts[0] not in rank:
            problems.append(f"core/{rel}: folder '{parts[0]}' is not in VRAMCALC_LAYERS")
            continue
        else:
            own = rank[parts[0]]
        text = open(path, encoding="utf-8").read()
        if text.count("\n") > 400:
            problems.append(f"core/{rel}: {text.count(chr(10))} lines (at most 400)")
        for target in include.findall(text):
            head = target.split("/")[0]
            if len(parts) == 1 and "/" not in target and target.startswith("cli") and os.path.exists(os.path.join(core, target)):
                continue
            if "/" not in target:
                problems.append(f"core/{rel}: includes \"{target}\" without its folder")
            elif head not in rank:
                problems.append(f"core/{rel}: includes \"{target}\" from an unknown folder")
            elif rank[head] > own:
                problems.append(f"core/{rel}: {parts[0] if own < len(layers) else 'cli'} includes {target}, a higher layer")
            elif not os.path.exists(os.path.join(core, target)):
                problems.append(f"core/{rel}: includes \"{target}\", which does not exist")
# web/: the static imports between the page's modules form no cycle.
web = os.path.join(root, "web")
imports = re.compile(r'^\s*import\s[^;]*?from\s+[\'"](\.[^\'"]+)[\'"]', re.M | re.S)
graph = {}
for folder, _, names in os.walk(web):
    for name in names:
        if name.endswith((".js", ".mjs")):
            path = os.path.normpath(os.path.join(folder, name))
            text = open(path, encoding="utf-8").read()
            graph[path] = [os.path.normpath(os.path.join(folder, t)) for t in imports.findall(text)]
state = {}
def visit(node, trail):
    state[node] = "open"
    for nxt in graph.get(node, []):
        if state.get(nxt) == "open":
            cycle = trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt]
            problems.append("web: import cycle " + " -> ".join(os.path.relpath(c, web) for c in cycle))
        elif nxt not in state:
            visit(nxt, trail + [nxt])
    state[node] = "done"
for node in sorted(graph):
    if node not in state:
        visit(node, [node])

for p in problems:
    print(p)
print(f"{files} core files in {len(layers)} layers, {len(graph)} page modules: {len(problems)} problems")
sys.exit(1 if problems else 0)
