#!/usr/bin/env bash
# Builds the native CLI/tests (build/) and the WebAssembly module into web/.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"

# emcc's optimizer needs Debian's acorn module.
export NODE_PATH=/usr/share/nodejs
emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-wasm -j"$jobs"
# The page's catalog: models.json summarised by the core (configs and parameter counts).
build/vramcalc --list --json > web/models.json

# Service worker with a cache version derived from the built files.
version=$(find web -type f ! -name sw.js | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)
sha_wasm=$(sha256sum web/vramcalc.wasm | cut -c1-64)
sha_js=$(sha256sum web/vramcalc.js | cut -c1-64)
sed -e "s/__VERSION__/$version/" -e "s/__SHA_WASM__/$sha_wasm/" -e "s/__SHA_JS__/$sha_js/" web/sw.template.js > web/sw.js
