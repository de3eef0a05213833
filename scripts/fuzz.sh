#!/usr/bin/env bash
# Coverage-guided fuzzing of the JSON API with libFuzzer (clang), seeded with
# the test fixtures, every models.json config and deep/large hostile inputs,
# with a JSON dictionary (fuzz/json.dict). usage: scripts/fuzz.sh [seconds]
#
# -max_len 131072: long enough for 55,000-level nesting (110 KB, the size
# that crashed the CLI in issue 13), 1,000s of levels built by mutation, and
# long strings; the 8 MB size limit itself is tested in tests/test_hostile.cpp
# (fuzzing inputs that large would make each run take milliseconds).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
out=build-fuzz
mkdir -p "$out/corpus"
sources=$(ls core/*.cpp | grep -v '^core/cli\.cpp$')
# shellcheck disable=SC2086
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -Icore fuzz/fuzz_estimate.cpp $sources \
    -o "$out/fuzz_estimate"
cp tests/fixtures/*.json "$out/corpus/"
python3 - "$out/corpus" <<'PY'
import json, sys
out = sys.argv[1]
for m in json.load(open('models.json'))['models']:
    open(f"{out}/{m['id']}.json", 'w').write(json.dumps(m['config']) + '\0{"mode":"train"}')
llama = json.load(open('tests/fixtures/llama-3-8b.config.json'))
seeds = {
    'deep-64': '[' * 64 + ']' * 64,
    'deep-65': '{"a":' * 65 + '1' + '}' * 65,
    'deep-55000': '[' * 55000 + ']' * 55000,
    'deep-job': json.dumps(llama) + '\0' + '{"mode":' * 70 + '1' + '}' * 70,
    'long-string': json.dumps({**llama, 'model_type': 'x' * 100000}),
    'long-key': json.dumps(llama) + '\0' + json.dumps({'k' * 100000: 1}),
    'duplicate': json.dumps(llama)[:-1] + ', "hidden_size": 8192}\0{"mode":"train","mode":"lora"}',
    'huge-numbers': '{"model_type":"llama","hidden_size":1e308,"num_hidden_layers":18446744073709551615}\0{"batch":1e300}',
    'bad-utf8': '{"model_type":"llama\xff"}\0{"\xed\xa0\x80":1}',
}
for name, text in seeds.items():
    open(f'{out}/seed-{name}.json', 'wb').write(text.encode('latin-1'))
PY
"$out/fuzz_estimate" -max_total_time="$seconds" -max_len=131072 -dict=fuzz/json.dict -print_final_stats=1 "$out/corpus"
