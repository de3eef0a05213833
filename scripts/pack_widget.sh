#!/usr/bin/env bash
# The npm package vramcalc-widget: packages/widget/ (package.json, README.md) plus the files its `files` lists,
# copied from web/ (scripts/build.sh builds vramcalc.js, vramcalc.wasm and models.json first), packed by
# `npm pack` into OUT (default build/): OUT/vramcalc-widget-<version>.tgz, whose path is printed last.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mkdir -p "${1:-build}" && cd "${1:-build}" && pwd)
stage="$out/widget-package"
rm -rf "$stage"
mkdir -p "$stage"
cp packages/widget/package.json packages/widget/README.md "$stage/"
for file in $(node -e 'for (const f of require("./packages/widget/package.json").files) console.log(f)'); do
  cp "web/$file" "$stage/$file"
done
# The package ships no calculator page: its widget links to one only when the element names it (calculator="…").
sed -i 's|^const calculatorPage = .*;$|const calculatorPage = null;|' "$stage/widget.js"
grep -q '^const calculatorPage = null;$' "$stage/widget.js"
tarball=$(cd "$stage" && npm pack --silent --pack-destination "$out")
echo "$out/$tarball"
