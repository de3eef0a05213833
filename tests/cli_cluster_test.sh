#!/usr/bin/env bash
# CLI behaviour of the cluster planner: report, JSON, catalog listing, errors naming the field.
# usage: cli_cluster_test.sh path/to/vramcalc
set -u
cli=$1
source "$(dirname "$0")/cli_expect.sh"

expect "list gpus" 0 "^gb200	GB200 \(NVL72\) 186GB	2500 TFLOPS BF16" -- --list-gpus
expect "list fabrics" 0 "^eth-100	Ethernet 100 Gb/s" -- --list-gpus
expect "train report" 0 "Training step \(TP 1 × PP 1 × DP 8, ZeRO-3/FSDP, 1 micro-batch\)" -- --model llama-3.1-8b --mode train --gpus 8 --zero 3 --plan
expect "recommendation" 0 "^Recommended layout \([0-9]+ considered\)" -- --model llama-3.1-70b --mode train --gpus 16 --checkpointing full --gpu h100
expect "per-op fp8" 0 "^    torchao float8 tensorwise casts and scales" -- --model llama-3.1-8b --mode train --seq 8192 --batch 2 --checkpointing selective_op --gpus 8 --zero 3 --cluster-fp8 tensorwise
expect "schedule" 0 "Pipeline bubble .*" -- --model llama-3.1-8b --mode train --gpus 4 --pp 4 --cluster-schedule zbv
expect "bad schedule" 2 "^vramcalc: error: cluster.schedule: must be one of" -- --mode train --plan --cluster-schedule zigzag
expect "gpt-oss on llama.cpp" 0 "^Serving \(TP 1 × PP 1, one replica\)" -- --model gpt-oss-20b --engine llamacpp --gpu rtx3090 --plan
expect "decode KV" 0 "the running sequences hold 0.54 GB of KV at the prompt" -- --model llama-3-8b --engine vllm --gpu h100 --plan
expect "ethernet bound" 0 "communication-bound: FSDP" -- --model llama-3.1-8b --mode train --gpus 64 --zero 3 --fabric eth-100
expect "budget" 0 "Budget: 1.00 T tokens in .*GPU-hours, \\$" -- --model llama-3.1-8b --mode train --gpus 8 --plan --cluster-tokens 1e12 --cluster-price-per-gpu-hour 2
expect "serve report" 0 "Decode: [0-9.]+ tok/s per sequence" -- --model llama-3.1-70b --dtype q4_k_m --gpus 2 --gpu rtx4090
expect "json" 0 '"workload": "serve"' -- --gpu l40s --json
expect "unknown gpu" 2 "^vramcalc: error: (job|cluster)\.gpu: unknown GPU 'h9000'" -- --gpu h9000
expect "unknown fabric" 2 "^vramcalc: error: cluster.fabric: unknown fabric" -- --fabric pigeon
expect "bad efficiency" 2 "^vramcalc: error: cluster.compute_efficiency: must be between" -- --plan --cluster-compute-efficiency 7
expect "bad field" 2 "^vramcalc: error: cluster.warp: unknown field" -- --cluster-warp 9
expect "layout split" 2 "^vramcalc: error: cluster.layout: tp × pp × cp = 8 must divide cluster.gpus \(12\)" -- --mode train --gpus 12 --plan --cluster-layout '{"tp":8}'
# One question, one answer (issue 33): the job's own layout error comes first, naming the job's field.
expect "layout from job" 2 "^vramcalc: error: job.gpus: must be a multiple of tp × pp \(8 × 1\), got 12" -- --mode train --gpus 12 --tp 8 --plan
expect "layout json" 0 "Training step \(TP 2 × PP 2 × DP 2, ZeRO-1" -- --mode train --gpus 8 --cluster-layout '{"tp":2,"pp":2,"zero":1}'
expect "missing value" 2 "^vramcalc: error: cluster.gpu: missing value" -- --gpu
# Token budgets as people write them (issue 23), and nonsense refused naming the field.
expect "tokens 1T" 0 '"tokens": 1000000000000,' -- --mode train --gpus 8 --gpu h100 --cluster-tokens 1T --json
expect "tokens 1.5 trillion" 0 '"tokens": 1500000000000,' -- --mode train --gpus 8 --gpu h100 --cluster-tokens "1.5 trillion" --json
expect "tokens nonsense" 2 "^vramcalc: error: cluster.tokens: must be a number of tokens like 1T" -- --mode train --cluster-tokens lots
# With a GPU the text answer leads with the verdict for it, then the planner's report.
expect "planner verdict" 0 "^✗ does not fit your 8 × H100 80GB" -- --mode train --model llama-3.1-70b --gpus 8 --gpu h100

# Issue 37 M1: Apple parts have no scale-up link; MoE training over 2 of them answers, with the verdict first.
expect "apple moe train" 0 "^  Step: [0-9.]+ s" -- --model mixtral-8x7b --mode train --gpus 2 --gpu m4-max-128
expect "apple moe verdict" 0 "needs [0-9.]+ GB on each" -- --model mixtral-8x7b --mode train --gpus 2 --gpu m4-max-128
# When the planner cannot answer, the memory estimate still prints, then the planner's error (exit 2).
expect "estimate on planner error" 2 "^  Total +[0-9.]+" -- --model llama-3.1-8b --mode train --gpus 12 --gpu h100 --cluster-layout '{"tp":8}'
expect "planner error after estimate" 2 "^vramcalc: error: cluster.layout: tp × pp × cp = 8 must divide" -- --model llama-3.1-8b --mode train --gpus 12 --gpu h100 --cluster-layout '{"tp":8}'
# Issue 37 L9: whole tokens, at least one; thousands grouped and a trailing "tokens" are read.
expect "tokens half" 2 "^vramcalc: error: cluster.tokens: must be between 1 token" -- --mode train --gpus 8 --gpu h100 --cluster-tokens 0.5
expect "tokens underflow" 2 "^vramcalc: error: cluster.tokens: must be between 1 token" -- --mode train --gpus 8 --gpu h100 --cluster-tokens 1e-400T
expect "tokens grouped" 0 '"tokens": 1000,' -- --mode train --gpus 8 --gpu h100 --cluster-tokens 1,000 --json
expect "one token" 0 "Budget: 1 token in" -- --mode train --gpus 8 --gpu h100 --cluster-tokens 1
# Issue 34: every planner figure carries its cross-validated range.
expect "ranges" 0 "Budget: 1.00 T tokens in [0-9.]+ days \([0-9.]+–[0-9.]+\)" -- --model llama-3.1-70b --mode train --seq 4096 --checkpointing full --gpus 256 --gpu h100 --cluster-tokens 1T --cluster-price-per-gpu-hour 2.5
expect "serve ranges" 0 "Decode: [0-9.]+ tok/s per sequence \([0-9.]+–[0-9.]+\)" -- --model llama-3-8b --engine vllm --gpu h100 --plan

echo "cli cluster tests: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
