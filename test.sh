#!/usr/bin/env bash
# Installs what is missing, builds native + wasm, runs every test through CTest; then the unit and CLI
# tests again under clang's AddressSanitizer and UndefinedBehaviorSanitizer, and a bounded libFuzzer run
# of every parser (config, job, safetensors and GGUF headers: VRAMCALC_FUZZ_SECONDS each, default 30),
# two at a time (build-asan, scripts/build-sanitized.sh).
#
# Two lanes on the machine's cores. The sanitizer lane (its build, then its unit and CLI tests) runs in
# the background at the lowest CPU priority (nice 19), on the CPU the foreground leaves: between the
# native and wasm builds' steps, and while the browser tests wait on the page (about half their time).
# Its output goes to build-asan/build.log and build-asan/tests.log, printed when it ends. The native tests
# run two at a time, the browser suite alone; the fuzzers last, in the foreground, so that their seconds
# are seconds of CPU. Time from a clean clone without a compiler cache: docs/architecture.md, "Tests".
set -euo pipefail
set -m  # each background job in a process group of its own (the same session, so nice still ranks it)
cd "$(dirname "$0")"
phase() { echo "test.sh: $1 at $SECONDS s"; }
scripts/install-deps.sh

mkdir -p build-asan
nice -n 19 bash -c 'scripts/build-sanitized.sh "$1" > build-asan/build.log 2>&1 ||
        { echo "sanitizer build failed:"; tail -40 build-asan/build.log; exit 1; }
    ctest --test-dir build-asan -E "^fuzz_" -j2 --output-on-failure' _ "${VRAMCALC_FUZZ_SECONDS:-30}" \
    > build-asan/tests.log 2>&1 &
sanitizer_lane=$!
trap 'kill -- -"$sanitizer_lane" 2>/dev/null || true' EXIT

scripts/build.sh
phase "native and wasm built"
ctest --test-dir build -j2 --output-on-failure
phase "native tests passed"

lane_status=0
wait "$sanitizer_lane" || lane_status=$?
echo "sanitizer lane (build-asan/tests.log):"
cat build-asan/tests.log
if ((lane_status != 0)); then
    echo "test.sh: the sanitizer lane failed (exit $lane_status)"
    exit 1
fi
phase "sanitizer unit and CLI tests passed"
ctest --test-dir build-asan -R "^fuzz_" -j2 --output-on-failure
phase "fuzzers passed"
