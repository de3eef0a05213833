#!/usr/bin/env bash
# Builds the native CLI/tests (build/) and the WebAssembly module into web/.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# ccache, where installed, for both trees (as scripts/build-sanitized.sh): a second worktree or a clean
# clone rebuilds from the cache.
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build -j"$jobs"

# emcc's optimizer needs Debian's acorn module.
export NODE_PATH=/usr/share/nodejs
emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build-wasm -j"$jobs"
# The page's catalog: models.json summarised by the core (configs and parameter counts).
build/vramcalc --list --json > web/models.json

# index.html from page.html: the default view's figures from the same core, the styles and first-view.js
# inline (their hashes in its policy), so the first paint needs the page alone.
node scripts/bake.mjs web build/vramcalc

# Service worker: every precached file with its SHA-256, and a cache version derived from them.
node scripts/make_sw.mjs web

# The <vram-calc> widget as an npm package (packages/widget): build/vramcalc-widget-<version>.tgz.
scripts/pack_widget.sh build >/dev/null
