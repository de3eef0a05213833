#!/usr/bin/env bash
# CLI behaviour: exit codes, one-line errors naming the field, table and JSON output.
# usage: cli_test.sh path/to/vramcalc path/to/fixtures
set -u
cli=$1 fixtures=$2
passed=0 failed=0

expect() {  # expect NAME EXIT_CODE PATTERN -- args...
    local name=$1 code=$2 pattern=$3; shift 4
    local out rc
    out=$("$cli" "$@" 2>&1); rc=$?
    if [[ $rc -eq $code ]] && grep -qE -- "$pattern" <<<"$out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name (exit $rc, wanted $code; pattern '$pattern')"
        echo "$out" | head -5
    fi
}

expect "default model table" 0 "Weights +16\.06 +8\.03 B params × 2 bytes \(BF16\)" --
expect "training seed example" 0 "this job needs 9\.6 x that" -- --mode train
expect "training peak phase" 0 "Loss backward +146\.10   <- peak" -- --mode train
expect "fit table" 0 "RTX 4090 24GB +24 GiB \(25\.77 GB\) +fits +1$" --
expect "json output" 0 '"total_bytes": 18868203673\.6' -- --json
expect "config file" 0 "Parameters: 46\.70 B total, 12\.88 B active" -- --config "$fixtures/mixtral-8x7b.config.json"
expect "explicit params" 0 "Parameters: 7\.00 B total" -- --params 7e9 --config "$fixtures/llama-3-8b.config.json"
expect "list" 0 "deepseek-v3" -- --list
expect "help" 0 "usage: vramcalc" -- --help
expect "negative batch" 2 "^vramcalc: error: job\.batch: must be between 1 and" -- --batch -4
expect "text batch" 2 "^vramcalc: error: job\.batch: must be a number" -- --batch many
expect "absurd seq" 2 "job\.seq" -- --seq 1e15
expect "unknown model" 2 "error: model: unknown model 'llama-5'" -- --model llama-5
expect "malformed json" 2 "error: config: malformed JSON" -- --config "$fixtures/malformed.config.json"
expect "unknown architecture" 2 "error: config\.model_type: unknown architecture 'mamba'" -- --config "$fixtures/unknown-arch.config.json"
expect "missing file" 2 "error: config: cannot read file" -- --config /nonexistent.json
expect "missing value" 2 "error: job\.gpus: missing value" -- --gpus
expect "unknown flag" 2 "error: job\.colour: unknown field" -- --colour red
expect "stray argument" 2 "error: arguments: unexpected 'llama'" -- llama
expect "bad layout" 2 "error: job\.gpus: must be a multiple of tp" -- --gpus 6 --tp 4
expect "quantized training" 2 "error: job\.dtype: full training needs" -- --mode train --dtype int4
expect "params without dims" 2 "error: config\.hidden_size: missing; needed for" -- --params 7e9

echo "cli: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
