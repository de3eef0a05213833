#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer (clang, ASan + UBSan) of every parser: config.json text
# (fuzz/fuzz_config.cpp), jobs and cluster objects (fuzz_job.cpp), safetensors and GGUF headers
# (fuzz_checkpoint.cpp, seeded with each). Seeds: scripts/fuzz_seeds.py; JSON targets also get the
# JSON dictionary (fuzz/json.dict).
#
# usage: scripts/fuzz.sh [seconds] [target...]   build build-asan, fuzz each target (default: all four)
#                                                 for `seconds` (default 60), two at a time
#        scripts/fuzz.sh --run TARGET BINARY SECONDS   one bounded run (the sanitizer build's CTest tests)
#
# -max_len 131072 for JSON: long enough for 55,000-level nesting (110 KB, the size that crashed the CLI
# in issue 13) and long strings; the 8 MB size limit itself is tested in tests/test_hostile.cpp (inputs
# that large would make each run take milliseconds). Headers: 65536 bytes, 37 × the GGUF fixture.
# -timeout 30: an input that takes longer is a finding (bounded cost, docs/hostile-input.md).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == --run ]]; then
    target=$2 binary=$3 seconds=$4
    work="$(dirname "$binary")/fuzz-$target"
    mkdir -p "$work/corpus" "$work/seeds"
    python3 scripts/fuzz_seeds.py "$target" "$work/seeds"
    options=(-max_total_time="$seconds" -timeout=30 -rss_limit_mb=2560 -print_final_stats=1
             -artifact_prefix="$work/")
    case $target in
        config | job) options+=(-max_len=131072 -dict=fuzz/json.dict) ;;
        *) options+=(-max_len=65536) ;;
    esac
    exec "$binary" "${options[@]}" "$work/corpus" "$work/seeds"
fi

seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(config job safetensors gguf)
scripts/build-sanitized.sh "$seconds"
regex="^fuzz_($(IFS='|'; echo "${targets[*]}"))\$"
ctest --test-dir build-asan -R "$regex" -j2 --output-on-failure
