#!/usr/bin/env bash
# CLI behaviour: exit codes, one-line errors naming the field, table and JSON output.
# usage: cli_test.sh path/to/vramcalc path/to/fixtures
set -u
cli=$1 fixtures=$2
source "$(dirname "$0")/cli_expect.sh"

expect "default model table" 0 "Weights +16\.06 +8\.03 B params × 2 bytes \(BF16\)" --
expect "training seed example" 0 "this job needs 9\.6 x that" -- --mode train
expect "training peak phase" 0 "Loss backward +146\.14   <- peak" -- --mode train
expect "fit table" 0 "RTX 4090 24GB +25\.38 GB +fits +1$" --
# The table counts GPUs with the chosen ZeRO stage (core/fit.cpp), and its header says which.
expect "fit table, chosen ZeRO stage" 0 "GPUs needed \(ZeRO-2\)$" -- --mode train --zero 2
# Usable memory as PyTorch reports it (an H100 80GB: 79.11 GiB), not the box's 80.
expect "usable capacity" 0 "H100 80GB +84\.94 GB" --
expect "usable capacity in GiB" 0 "H100 80GB +79\.11 GiB" -- --units gib
expect "json output" 0 '"total_bytes": 18868203673\.6' -- --json
expect "config file" 0 "Parameters: 46\.70 B total, 12\.88 B active" -- --config "$fixtures/mixtral-8x7b.config.json"
expect "explicit params" 0 "Parameters: 7\.00 B total" -- --params 7e9 --config "$fixtures/llama-3-8b.config.json"
expect "list" 0 "deepseek-v3" -- --list
# pp given alone: TP takes the GPUs of a stage; when that cannot split the heads, the error names pp (Qwen2.5 14B: 40 heads).
expect "pp alone, heads" 2 '^vramcalc: error: job\.pp: tensor parallel degree 16 must divide num_attention_heads \(40\) \(the GPUs left per stage: 16 / pp 1\)' -- --model qwen2.5-14b --gpus 16 --pp 1
# --list --json is the page's catalog (scripts/build.sh): Llama 3 8B has 8,030,261,248 parameters
# (meta-llama/Meta-Llama-3-8B model card / safetensors index: 16,060,522,496 bytes of BF16).
expect "catalog json" 0 '"id":"llama-3-8b","name":"Llama 3 8B","hf_id":"meta-llama/Meta-Llama-3-8B","params_total":8030261248,' -- --list --json
bad_catalog=$(mktemp)
echo '{"models":[{"id":"x","name":"X","config":{"model_type":"bogus"}}]}' > "$bad_catalog"
expect "catalog json, bad model" 2 "^vramcalc: error: config\.model_type: unknown architecture 'bogus'" -- --list --json --models "$bad_catalog"
rm -f "$bad_catalog"
expect "catalog json, bad file" 2 '^vramcalc: error: models.json: malformed JSON' -- --list --json --models "$fixtures/../CMakeLists.txt"
expect "help" 0 "usage: vramcalc" -- --help
expect "negative batch" 2 "^vramcalc: error: job\.batch: must be between 1 and" -- --batch -4
expect "text batch" 2 "^vramcalc: error: job\.batch: must be a number" -- --batch many
expect "absurd seq" 2 "job\.seq" -- --seq 1e15
expect "unknown model" 2 "error: model: unknown model 'llama-5'" -- --model llama-5
expect "malformed json" 2 "error: config: malformed JSON" -- --config "$fixtures/malformed.config.json"
expect "unknown architecture" 2 "error: config\.model_type: unknown architecture 'rwkv'" -- --config "$fixtures/unknown-arch.config.json"
expect "missing file" 2 "error: config: cannot read file" -- --config /nonexistent.json
expect "missing value" 2 "error: job\.gpus: missing value" -- --gpus
expect "unknown flag" 2 "error: job\.colour: unknown field" -- --colour red
# Issue 36: post-training, speculative decoding and several models on one GPU (docs/posttrain.md, docs/serving.md).
expect "grpo phases" 0 "Generation \(the rollout\) +[0-9.]+$" -- --model qwen2.5-7b --mode grpo --policy lora --use-vllm true --gpu h100
expect "grpo json" 0 '"peak_phase": "loss_backward"' -- --model qwen2.5-7b --mode grpo --policy lora --use-vllm true --gpu h100 --json
expect "grpo num_generations" 2 "^vramcalc: error: job\.num_generations: must divide the global batch of 6 completions" -- --model qwen2.5-7b --mode grpo --batch 3 --gpus 2
expect "vllm share above 1" 2 "^vramcalc: error: job\.vllm_gpu_memory_utilization: is vLLM's share of the whole GPU" -- --model qwen2.5-7b --mode grpo --use-vllm true --vllm-gpu-memory-utilization 1.2
expect "grpo inverse" 0 '"question": "max_completion_length"' -- --model qwen2.5-7b --mode grpo --policy lora --use-vllm true --gpu h100 --solve max_completion_length
expect "mtp" 0 '"method": "mtp"' -- --model deepseek-v3 --engine vllm --gpus 8 --gpu h200 --speculative-method mtp --json
expect "llama.cpp runs a model's own MTP layers (--spec-type draft-mtp), their KV beside the model's" 0 "the draft's KV for 8192 tokens 0\.03 GB" -- --model qwen3.6-27b --engine llamacpp --dtype q5_k_m --gpu rtx3090 --seq 8192 --speculative-method mtp
expect "Ollama has no MTP" 2 "^vramcalc: error: job\.speculative_method: ollama speculates with a draft model" -- --model qwen3.6-27b --engine ollama --gpu rtx3090 --speculative-method mtp
expect "PPO: a LoRA critic (critic_lora, OpenRLHF and ms-swift)" 0 "Critic \(value model\) weights 15\.18 GB \(the policy's architecture with a one-output value head, trained with the policy's adapters \(critic_lora\)" -- --model llama-3.1-8b --mode ppo --policy lora --gpu h100 --critic-lora true
expect "draft vocabulary" 2 "^vramcalc: error: job\.speculative_model: the draft's vocabulary \(151936 tokens\) is not the target's \(128256\)" -- --model llama-3.1-8b --engine vllm --gpu h100 --speculative-model qwen2.5-0.5b
expect "machine jobs" 0 "^✓ 2 jobs fit your H100 80GB" -- --model llama-3.1-8b --engine vllm --gpu h100 --gpu-memory-utilization 0.6 --machine-jobs '[{"model":"qwen3-0.6b","engine":"vllm","gpu_memory_utilization":0.3}]'
expect "machine shares" 2 "^vramcalc: error: job\.machine_jobs\[0\]\.gpu_memory_utilization: the engines' shares of this GPU add up to 1\.2" -- --model llama-3.1-8b --engine vllm --gpu h100 --machine-jobs '[{"model":"qwen3-0.6b","engine":"vllm","gpu_memory_utilization":0.3}]'
expect "stray argument" 2 "error: arguments: unexpected 'llama'" -- llama
expect "bad layout" 2 "error: job\.gpus: must be a multiple of tp" -- --gpus 6 --tp 4
expect "quantized training" 2 "error: job\.dtype: full training needs" -- --mode train --dtype int4
expect "params without dims" 2 "error: config\.hidden_size: missing; needed for" -- --params 7e9

# Hostile input (issue 13): named errors with exit 2, never "internal error" (exit 3) or a crash.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
open(d + '/deep-arrays.json', 'w').write('[' * 55000 + ']' * 55000)
open(d + '/deep-objects.json', 'w').write('{"a":' * 5000 + '1' + '}' * 5000)
open(d + '/big.json', 'w').write('{"model_type":"llama"}' + ' ' * 9_000_000)
open(d + '/dup.json', 'w').write('{"mode":"train","mode":"lora"}')
open(d + '/array.json', 'w').write('[1]')
open(d + '/models-bad.json', 'w').write('{"models":[{"id":"a","name":"A","hf_id":5,"config":{"num_parameters":1e9}}]}')
PY
expect "whole numbers quoted as typed" 2 '^vramcalc: error: job\.batch: must be between 1 and 1000000, got -1$' -- --batch -1
expect "int64 max quoted as typed" 2 'got 9223372036854775807$' -- --batch 9223372036854775807
expect "solve error names its field once" 2 '^vramcalc: error: question: must be one of' -- --solve bogus --gpu h100
expect "checkpoint header: exact weights" 0 'Weights +16\.06 +16060522496 bytes, exact from the safetensors index' -- --checkpoint "$fixtures/llama-3-8b.safetensors.index.json"
# Read (16 values in one tensor), then refused as the model's weights: it does not cover the tiny Llama.
expect "checkpoint whose length starts with a space" 2 'checkpoint: header does not cover the model: its tensors hold 16 values' -- --config "$fixtures/tiny-llama.config.json" --checkpoint "$fixtures/space-prefix.safetensors-header"
big_header=$(mktemp)
printf '\x80\xf0\xfa\x02\x00\x00\x00\x00{' > "$big_header"  # claims a 50,000,000-byte header
expect "checkpoint header over 8 MB named from its length" 2 'header of 50000000 bytes is larger than 8 MB' -- --config "$fixtures/tiny-llama.config.json" --checkpoint "$big_header"
rm -f "$big_header"
expect "checkpoint unreadable" 2 '^vramcalc: error: checkpoint: cannot read file' -- --checkpoint /nonexistent.safetensors
expect "batch nan" 2 '^vramcalc: error: job\.batch: must be a number, got "nan"$' -- --batch nan
expect "batch inf" 2 '^vramcalc: error: job\.batch: must be a number, got "inf"$' -- --batch inf
expect "batch 1e999" 2 '^vramcalc: error: job\.batch: must be a finite number, got 1e999$' -- --batch 1e999
expect "seq hex" 2 '^vramcalc: error: job\.seq: must be a number, got "0x10"$' -- --seq 0x10
expect "params nan" 2 '^vramcalc: error: config\.num_parameters: must be a number, got "NaN"$' -- --params NaN
expect "decimal forms" 0 "Parameters: 7\.00 B total" -- --params +.7e10 --config "$fixtures/llama-3-8b.config.json" --batch 1.0
expect "invalid UTF-8 value" 2 "^vramcalc: error: job\.mode: is not valid UTF-8 text: '�'$" -- --mode $'\xff'
expect "invalid UTF-8 flag" 2 "^vramcalc: error: arguments: is not valid UTF-8 text" -- $'--\xc0\xaf' 1
expect "surrogate in value" 2 "^vramcalc: error: job\.lora_targets: is not valid UTF-8" -- --lora-targets $'\xed\xa0\x80'
expect "long value not echoed" 2 "^vramcalc: error: job\.dtype: unknown format 'x{60}… \(100000 bytes\)'" -- --dtype "$(printf 'x%.0s' $(seq 100000))"
expect "non-UTF-8 path" 2 "^vramcalc: error: config: cannot read file '/nonexistent/�\.json'$" -- --config $'/nonexistent/\xff.json'
expect "config /dev/zero" 2 "^vramcalc: error: config: larger than 8 MB" -- --config /dev/zero
expect "job /dev/zero" 2 "^vramcalc: error: job: larger than 8 MB" -- --job /dev/zero
expect "big config" 2 "^vramcalc: error: config: larger than 8 MB" -- --config "$tmp/big.json"
expect "deep config" 2 "^vramcalc: error: config: nested deeper than 64 levels$" -- --config "$tmp/deep-arrays.json"
expect "deep job" 2 "^vramcalc: error: job: nested deeper than 64 levels$" -- --job "$tmp/deep-objects.json"
expect "deep models.json" 2 "^vramcalc: error: models\.json: nested deeper than 64 levels$" -- --models "$tmp/deep-arrays.json"
expect "duplicate key" 2 "^vramcalc: error: job\.mode: given twice in one object$" -- --job "$tmp/dup.json"
expect "params with array config" 2 "^vramcalc: error: config: must be a JSON object" -- --params 7e9 --config "$tmp/array.json"
expect "models.json wrong type" 2 "^vramcalc: error: models\[0\]\.hf_id: must be a string, got 5$" -- --models "$tmp/models-bad.json" --model a
# Issue 23: the answer leads with the verdict for the user's GPU, or the headline when none is given.
expect "verdict leads" 0 "^✓ fits your RTX 4090 24GB: 15\.39 GB of 25\.38 GB \(61 %\), 10\.00 GB free$" -- --model llama-3.1-8b --mode qlora --gpu rtx4090 --engine custom
expect "headline leads" 0 "^708\.9[0-9] GB in all → |^709\.[0-9]+ GB in all → " -- --model deepseek-v3
expect "device-gb" 0 "^✓ fits your GPU of 24 GB: " -- --device-gb 24
expect "units gib" 0 "^  Total +17\.57$" -- --units gib
expect "classic count" 0 "^  fp32 master weights +32\.12$" -- --mode train
expect "hub id as --model" 0 "^vramcalc: Llama 3\.1 8B" -- --model meta-llama/Llama-3.1-8B-Instruct
expect "did you mean" 2 "unknown model 'llama-5'; did you mean " -- --model llama-5
expect "search" 0 '"id": "qwen2\.5-7b"' -- --search "qwen 2.5 7b"
expect "ladder" 0 '"status": "partial"' -- --model llama-3-70b --gpu rtx4090 --ladder
expect "bake" 0 '^\{"ok":true,"model":"llama-3-8b","job":\{\},"estimate":\{"ok":true,.*"counterpart":\{"ok":true' -- --bake
expect "intents" 0 '"id": "run_locally"' -- --intents

# One table of values given as text (tests/fixtures/text-values.json), as flags: the same table runs
# through the wasm (tests/wasm/values.test.mjs) and the widget's attributes (tests/browser/values.test.mjs).
if python3 - "$cli" "$fixtures/text-values.json" <<'PY'; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: text-values table"; fi
import json, subprocess, sys
cli, table = sys.argv[1], json.load(open(sys.argv[2]))
bad = 0
def run(flags):
    r = subprocess.run([cli, '--json'] + flags, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr.strip()
for case in table['cases']:
    rc, out, err = run(['--' + case['field'].replace('_', '-'), case['text']])
    if 'error' in case:
        ok = rc == 2 and err == 'vramcalc: error: ' + case['error']
    else:
        ok = rc == 0 and json.loads(out)['job'][case['field']] == case['value']
    if not ok:
        bad += 1
        print(f"  text-values: --{case['field']} {case['text']!r}: exit {rc}, {err or out[:80]!r}")
for case in table['twice']:
    rc, out, err = run([a for name, text in case['fields'] for a in ('--' + name, text)])
    want = case['error']
    for name, _ in case['fields']:
        want = want.replace('{' + name + '}', '--' + name, 1)
    if rc != 2 or err != 'vramcalc: error: ' + want:
        bad += 1
        print(f"  text-values: {case['fields']}: exit {rc}, {err!r}")
sys.exit(1 if bad else 0)
PY

# Your machine (issue 32): both pools, the speed, the command; bad machine input names its field.
expect "ram flag: both pools" 0 "system RAM [0-9.]+ GB of 64\.00 GB" -- --model gpt-oss-120b --engine llamacpp --gpu rtx4090 --ram-gb 64
expect "fit: experts of the first 24 layers" 0 "^--fit|--fit: context 131,072 → 4,096; the routed experts of the first 24 of 36 layers in RAM" -- --model gpt-oss-120b --engine llamacpp --gpu rtx4090 --ram-gb 64
expect "printed command" 0 "^  llama-server -m gpt-oss-120b-MXFP4\.gguf -c 4096 -ngl 37 --n-cpu-moe 24 -fa on -ctk f16 -ctv f16$" -- --model gpt-oss-120b --engine llamacpp --gpu rtx4090 --ram-gb 64
expect "printed command, quoted" 0 "^  llama-server -m 'my model;rm -rf x\.gguf' " -- --model gpt-oss-20b --engine llamacpp --gpu rtx4090 --model-file "my model;rm -rf x.gguf"
expect "speed with its range" 0 "Speed: decode [0-9.]+ tokens/s \([0-9.]+ – [0-9.]+\)" -- --model gpt-oss-120b --engine llamacpp --gpu rtx4090 --ram-gb 64
expect "json local object" 0 '"decode_text": "[0-9.]+ tokens/s' -- --model gpt-oss-120b --engine llamacpp --gpu rtx4090 --ram-gb 64 --json
expect "solve n_cpu_moe" 0 '"answer": 24,' -- --model gpt-oss-120b --engine llamacpp --gpu rtx4090 --solve n_cpu_moe
expect "cpu only" 0 "^✓ fits: no GPU, system RAM" -- --model qwen3-30b-a3b --dtype q4_k_m --engine llamacpp --gpu cpu --ram-gb 32 --seq 4096
expect "a Mac: one memory" 0 "^✓ fits: GPU share .*unified memory" -- --model gpt-oss-120b --engine llamacpp --gpu m3-max-128
expect "ollama refusal" 0 "Ollama refuses: model requires more system memory \([0-9.]+ GiB\) than is available \(14\.9 GiB\)" -- --model llama-3.1-70b --engine ollama --ollama-version 0.12.0 --dtype q4_k_m --gpu rtx4090 --ram-gb 16
expect "ollama env and modelfile" 0 "PARAMETER num_ctx 32768" -- --model qwen3-30b-a3b --engine ollama --dtype q4_k_m --gpu rtx4090
expect "mlx command" 0 "^  mlx_lm\.server --model Qwen/Qwen3-4B$" -- --model qwen3-4b --engine mlx --dtype int4 --gpu m3-pro-18
expect "ram zero" 2 "^vramcalc: error: job\.ram_gb: must be more than 0 and at most 100,000 GB \(100 TB\), got 0$" -- --engine llamacpp --ram-gb 0
expect "ram too large" 2 "^vramcalc: error: job\.ram_gb: must be more than 0" -- --engine llamacpp --ram-gb 200000
expect "ram negative" 2 "^vramcalc: error: job\.ram_gb:" -- --engine llamacpp --ram-gb -8
expect "n-cpu-moe on a dense model" 2 "^vramcalc: error: job\.n_cpu_moe: moves the routed experts of mixture-of-experts layers to RAM; this model is dense" -- --engine llamacpp --n-cpu-moe 4
expect "n-cpu-moe above the layers" 2 "^vramcalc: error: job\.n_cpu_moe: must be at most the model's 48 layers, got 49$" -- --model qwen3-30b-a3b --engine llamacpp --n-cpu-moe 49
expect "mlx off a Mac" 2 "^vramcalc: error: job\.engine: MLX runs on Apple silicon; rtx4090 is not a Mac$" -- --engine mlx --gpu rtx4090
expect "version of another engine" 2 "^vramcalc: error: job\.ollama_version: applies to engine ollama$" -- --engine llamacpp --ollama-version 0.12.0

# Issue 33's one answer with issues 32 and 36: the job is read with the question (an intent's fields under the
# flags), so a CPU-only machine runs the intent's llama.cpp; post-training names its recipe and is not timed.
expect "cpu only, run locally" 0 "^✓ fits: no GPU, system RAM [0-9.]+ GB of 16\.00 GB" -- --model llama-3.2-1b --intent run_locally --ram-gb 16 --cpu-only true
expect "post_train recipe" 0 "^Recipe: GRPO of a LoRA policy, TRL's GRPO with vLLM colocated: [0-9.]+ GB · " -- --model qwen3-30b-a3b --intent post_train --gpu h100
expect "post_train planner named" 2 "^vramcalc: error: job\.mode: the planner times pre-training and serving" -- --model llama-3.1-8b --intent post_train --gpu h100 --plan
expect "answer machine ram" 0 '"text": "1 × RTX 4090 24GB, 25\.38 GB usable each; 64\.00 GB of system RAM"' -- --model gpt-oss-120b --engine llamacpp --gpu rtx4090 --ram-gb 64 --json

# What can I run? (issue 35, docs/what-fits.md): the whole catalog on a machine, as a table or JSON.
expect "what-fits: gpt-oss-120b with its experts in RAM" 0 "^gpt-oss-120b \(MoE, MXFP4\) +116\.83 B +mxfp4 +experts in RAM \(24\)" -- --what-fits --gpu rtx4090 --ram-gb 64
expect "what-fits: Llama 3.1 8B whole in F16" 0 "^Llama 3\.1 8B +8\.03 B +fp16 +full GPU" -- --what-fits --gpu rtx4090 --ram-gb 64
expect "what-fits: the header" 0 "^What can I run\? RTX 4090 24GB \+ 64 GB RAM .*sized at 8,192 tokens" -- --what-fits --gpu rtx4090 --ram-gb 64
expect "what-fits json: the row's job" 0 '"dtype": "mxfp4",' -- --what-fits --gpu rtx4090 --ram-gb 64 --family gpt-oss --json
expect "what-fits: filters, sorted by name" 0 "^Qwen3 0\.6B " -- --what-fits --gpu rtx3060 --family Qwen3 --size tiny --sort name
expect "what-fits: filters leave none" 0 "^the filters leave none of the [0-9]+ models \(family nope: none left" -- --what-fits --gpu rtx4090 --family nope
expect "what-fits: the header names the GPUs' count" 0 "^What can I run\? 2 × RTX 4090 24GB \+ 64 GB RAM \(89\.6 GB/s\); chat" -- --what-fits --gpu rtx4090 --gpus 2 --ram-gb 64
expect "what-fits: a long filter value is cut short in the message" 0 "^the filters leave none of the [0-9]+ models \(family x{60}… \(5000 bytes\): none left; " -- --what-fits --gpu rtx4090 --family "$(printf 'x%.0s' {1..5000})"
expect "what-fits: no machine" 2 "^vramcalc: error: job\.gpu: say what your machine has" -- --what-fits
expect "what-fits: bad intent" 2 "^vramcalc: error: intent: must be one of chat, serve, finetune, got 'train'$" -- --what-fits --gpu rtx4090 --intent train
expect "what-fits: a format is the list's" 2 "^vramcalc: error: job\.dtype: the list chooses each model's best format" -- --what-fits --gpu rtx4090 --dtype q4_k_m
expect "what-fits: a pasted config that fails" 0 "config .*malformed\.config\.json: configs\[0\]\.config: malformed JSON" -- --what-fits --gpu rtx4090 --config "$fixtures/malformed.config.json"
expect "what-fits: serve" 0 "tok/s per user" -- --what-fits --intent serve --gpu h100 --family Qwen3
expect "what-fits: finetune, QLoRA where LoRA does not fit" 0 "^Qwen3 32B +32\.76 B +qlora +fits" -- --what-fits --intent finetune --gpu rtx4090 --family Qwen3

echo "cli: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
