#!/usr/bin/env bash
# Installs what is missing, builds native + wasm, runs every test through CTest; then the unit and CLI
# tests again under clang's AddressSanitizer and UndefinedBehaviorSanitizer, and a bounded libFuzzer run
# of every parser (config, job, safetensors and GGUF headers: VRAMCALC_FUZZ_SECONDS each, default 45),
# two at a time (build-asan, scripts/build-sanitized.sh).
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure
scripts/build-sanitized.sh "${VRAMCALC_FUZZ_SECONDS:-45}"
ctest --test-dir build-asan -j2 --output-on-failure
