#!/usr/bin/env bash
# Builds the sanitizer tree (build-asan): clang -O1 with AddressSanitizer and UndefinedBehaviorSanitizer
# (every finding fatal) for the core, the CLI, the unit tests and the libFuzzer targets of fuzz/
# (CMakeLists.txt VRAMCALC_SANITIZE). ./test.sh runs its tests: ctest --test-dir build-asan.
# usage: scripts/build-sanitized.sh [fuzz seconds per target, default 30]
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-asan -DVRAMCALC_SANITIZE=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DVRAMCALC_FUZZ_SECONDS="${1:-30}" "${launcher[@]}" >/dev/null
cmake --build build-asan -j"$(nproc)" --target vramcalc vramcalc_tests fuzz_config fuzz_job fuzz_checkpoint
