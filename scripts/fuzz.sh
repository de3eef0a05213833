#!/usr/bin/env bash
# Coverage-guided fuzzing of the JSON API with libFuzzer (clang), seeded with
# the test fixtures and every models.json config. usage: scripts/fuzz.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
out=build-fuzz
mkdir -p "$out/corpus"
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -Icore \
    fuzz/fuzz_estimate.cpp core/api.cpp core/config.cpp core/formats.cpp core/gpus.cpp core/json_text.cpp \
    core/json_writer.cpp core/memory.cpp core/params.cpp core/report.cpp core/units.cpp -o "$out/fuzz_estimate"
cp tests/fixtures/*.json "$out/corpus/"
python3 -c "
import json
for m in json.load(open('models.json'))['models']:
    open('$out/corpus/' + m['id'] + '.json', 'w').write(json.dumps(m['config']) + '\0{\"mode\":\"train\"}')
"
"$out/fuzz_estimate" -max_total_time="$seconds" -max_len=4096 "$out/corpus"
