#!/usr/bin/env python3
"""Writes tests/validation/measured.json: the training rows of the shared
calibration file (../shared/calibration/measured.json), each expressed as a
vramcalc job. Values are converted to bytes from the unit the source wrote;
what each figure counts (allocated or reserved) becomes the job's `report`.
usage: scripts/make_measured.py [path/to/measured.json]"""
import json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "shared", "calibration", "measured.json")
UNITS = {"GiB": 2**30, "GB (1e9 bytes)": 1e9, "MiB": 2**20}

TT3B = {"mode": "train", "framework": "torchtune", "batch": 2, "seq": 4096, "report": "allocated",
        "optimizer": "adamw", "optimizer_dtype": "bf16", "optimizer_in_backward": False, "checkpointing": "none",
        "loss": "full", "compile": False}
TT3B_LORA = {"framework": "torchtune", "batch": 2, "seq": 4096, "report": "allocated", "lora_rank": 64,
             "lora_targets": "q_proj,v_proj,o_proj,gate_proj,up_proj,down_proj", "checkpointing": "full",
             "activation_offload": True, "loss": "chunked", "compile": True, "optimizer": "adamw"}
# torchtune Apr 2024 (lora/qlora tutorials): alpaca truncated at 512 tokens, unpacked (the longest
# batch sets the peak: 512), full cross-entropy on fp32 logits, torch AdamW (foreach), reserved GB.
# torchtune 0.1's TransformerDecoder returned output(h).float() and the recipe kept it through backward.
TT7B = {"framework": "torchtune", "batch": 2, "seq": 512, "report": "reserved", "checkpointing": "full",
        "loss": "full_fp32", "optimizer_impl": "foreach", "compile": False}
# fsdp_qlora train.py: pure bf16, FSDP full shard over 2 GPUs, reentrant checkpointing, PEFT LoRA
# r64 dropout 0.1 on q,k,v,gate,up,down, SDPA, peak reserved. transformers 4.38 (Feb 2024)
# LlamaForCausalLM returned fp32 logits (lm_head(...).float()) and shifted a copy for the loss.
# train.py loads on rank 0 (low_memory) and wraps with FSDP(sync_module_states=True): each unit is
# moved whole to every GPU, flattened and sharded; the largest unit's copies stay reserved
# ("reserved_after_model_wrap" 3.72 GiB per GPU for the 7B QLoRA run). The allocator slack is the
# one measured there: peak reserved 10.22 GiB over peak allocated 9.16 GiB (LoRA, 2048 tokens).
# train.py wraps with torch FullyShardedDataParallel (FSDP1, limit_all_gathers=True, use_orig_params=False).
FQ = {"gpus": 2, "zero": 3, "sharding_impl": "fsdp1", "precision": "pure", "adapter_dtype": "bf16", "checkpointing": "full",
      "attention": "sdpa", "loss": "full_fp32", "lora_rank": 64, "lora_dropout": 0.1, "optimizer_impl": "foreach",
      "lora_targets": "q_proj,k_proj,v_proj,gate_proj,up_proj,down_proj", "report": "reserved",
      "fragmentation": round(10.22 / 9.16 - 1, 3), "sync_module_states": True}
FQ_Q = FQ
# --sharding_strategy ddp: still FSDP, NO_SHARD (a whole copy of the weights on each GPU).
FQ_DDP = dict(FQ, zero=0)
# --use_cpu_offload true: FSDP CPUOffload(offload_params=True).
FQ_OFF = dict(FQ, offload_params=True)

JOBS = {
    "FT-TT-03": ("llama-3.2-3b", dict(TT3B)),
    "FT-TT-04": ("llama-3.2-3b", dict(TT3B, compile=True)),
    "FT-TT-05": ("llama-3.2-3b", dict(TT3B, compile=True, loss="chunked")),
    "FT-TT-06": ("llama-3.2-3b", dict(TT3B, compile=True, loss="chunked", checkpointing="full")),
    "FT-TT-07": ("llama-3.2-3b", dict(TT3B, compile=True, loss="chunked", checkpointing="full", optimizer_in_backward=True)),
    "FT-TT-08": ("llama-3.2-3b", dict(TT3B, compile=True, loss="chunked", checkpointing="full", optimizer_in_backward=True,
                                      activation_offload=True)),
    "FT-TT-09": ("llama-3.2-3b", dict(TT3B, compile=True, loss="chunked", checkpointing="full", optimizer_in_backward=True,
                                      activation_offload=True, optimizer="adam_8bit")),
    "LORA-TT-03": ("llama-3.2-3b", dict(TT3B_LORA, mode="lora")),
    "QLORA-TT-03": ("llama-3.2-3b", dict(TT3B_LORA, mode="qlora")),
    "LORA-TT-04": ("llama-2-7b", dict(TT7B, mode="lora", lora_rank=8, lora_targets="q_proj,v_proj")),
    "LORA-TT-05": ("llama-2-7b", dict(TT7B, mode="lora", lora_rank=64,
                                      lora_targets="q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj,lm_head")),
    # torchtune 0.1 built the layers in bf16 on the GPU and quantized them with torchao 0.1 (pinned by
    # the recipe's requirements then), whose to_nf4 was not chunked: the init replay (core/model_init.cpp).
    "QLORA-TT-04": ("llama-2-7b", dict(TT7B, mode="qlora", lora_rank=8, model_init="torchao_0.1_nf4",
                                       lora_targets="q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj")),
    "LORA-FQ-01": ("llama-2-7b", dict(FQ, mode="lora", batch=1, seq=2048)),
    "LORA-FQ-02": ("llama-2-7b", dict(FQ, mode="lora", batch=6, seq=2048)),
    "QLORA-FQ-01": ("llama-2-7b", dict(FQ_Q, mode="qlora", batch=1, seq=512)),
    "QLORA-FQ-02": ("llama-2-7b", dict(FQ_Q, mode="qlora", batch=1, seq=2048)),
}

# Measured figures quoted in the same sources as the rows above (their notes and quotes).
FQB = "https://github.com/AnswerDotAI/fsdp_qlora/blob/main/benchmarks_03_2024.md"
EXTRA = [
    ("LORA-FQ-01-allocated", "LORA-FQ-01", 9.16, "GiB", "peak allocated (torch.cuda.max_memory_allocated), ctx 2048",
     "llama-2-7b", dict(FQ, mode="lora", batch=1, seq=2048, report="allocated"), None),
    ("LORA-FQ-ctx512-allocated", "LORA-FQ-01", 8.28, "GiB", "peak allocated, ctx 512",
     "llama-2-7b", dict(FQ, mode="lora", batch=1, seq=512, report="allocated"), None),
    # The same benchmark's other tables (2x3090 unless marked 2x4090; context 2048; peak reserved GiB).
    ("QLORA-FQ-b4", "QLORA-FQ-02", 11.22, "GiB", "peak reserved, QLoRA batch 4", "llama-2-7b",
     dict(FQ_Q, mode="qlora", batch=4, seq=2048), "|   QLoRA    |     4      |       11.22       |   998    |"),
    ("QLORA-FQ-b10", "QLORA-FQ-02", 20.97, "GiB", "peak reserved, QLoRA batch 10", "llama-2-7b",
     dict(FQ_Q, mode="qlora", batch=10, seq=2048), "|   QLoRA    |     10     |       20.97       |   936    |"),
    ("LORA-FQ-b4", "LORA-FQ-02", 16.14, "GiB", "peak reserved, LoRA batch 4", "llama-2-7b",
     dict(FQ, mode="lora", batch=4, seq=2048), "|    LoRA    |     4      |       16.14       |  1,366   |"),
    ("QLORA-FQ-ddp-b8", "QLORA-FQ-02", 20.94, "GiB", "peak reserved, QLoRA DDP (FSDP NO_SHARD) batch 8", "llama-2-7b",
     dict(FQ_DDP, mode="qlora", batch=8, seq=2048), "|   QLoRA    | True |     8      |       20.94       |   875    |"),
    ("LORA-FQ-ddp-b4", "LORA-FQ-02", 22.04, "GiB", "peak reserved, LoRA DDP (FSDP NO_SHARD) batch 4", "llama-2-7b",
     dict(FQ_DDP, mode="lora", batch=4, seq=2048), "|    LoRA    | True |     4      |       22.04       |   881    |"),
    ("QLORA-FQ-yi34b-b2", "QLORA-FQ-02", 23.05, "GiB", "peak reserved, Yi 34B QLoRA batch 2", "yi-1.5-34b",
     dict(FQ_Q, mode="qlora", batch=2, seq=2048), "|   QLoRA    |    False    |     2      |       23.05       |  5,041   |"),
    ("QLORA-FQ-yi34b-offload-b4", "QLORA-FQ-02", 22.98, "GiB", "peak reserved, Yi 34B QLoRA CPU offload batch 4",
     "yi-1.5-34b", dict(FQ_OFF, mode="qlora", batch=4, seq=2048),
     "|   QLoRA    |    True     |     4      |       22.98       |  4,830   |"),
    ("QLORA-FQ-70b-offload-b2", "QLORA-FQ-02", 14.92, "GiB", "peak reserved, Llama-2 70B QLoRA CPU offload batch 2",
     "llama-2-70b", dict(FQ_OFF, mode="qlora", batch=2, seq=2048),
     "|   QLoRA    |    True     |     2      |       14.92       |  11,795  |"),
    ("LORA-FQ-offload-b10", "LORA-FQ-02", 22.69, "GiB", "peak reserved, 2x4090, LoRA CPU offload batch 10", "llama-2-7b",
     dict(FQ_OFF, mode="lora", batch=10, seq=2048), "|    LoRA    |    True     | False |     10     |       22.69       |   482    |"),
    ("QLORA-FQ-offload-b12", "QLORA-FQ-02", 22.38, "GiB", "peak reserved, 2x4090, QLoRA CPU offload batch 12", "llama-2-7b",
     dict(FQ_OFF, mode="qlora", batch=12, seq=2048), "|   QLoRA    |    True     | False |     12     |       22.38       |   464    |"),
    ("QLORA-FQ-mistral-offload-b12", "QLORA-FQ-02", 22.54, "GiB",
     "peak reserved, 2x4090, Mistral 7B v0.2 QLoRA CPU offload batch 12 (same shapes as v0.1 in training)", "mistral-7b",
     dict(FQ_OFF, mode="qlora", batch=12, seq=2048), "|   QLoRA    |    True     |     12     |     2,048      |       22.54       |   483    |"),
    ("QLORA-FQ-mistral-offload-24k", "QLORA-FQ-02", 22.54, "GiB",
     "peak reserved, 2x4090, Mistral 7B v0.2 QLoRA CPU offload, 24,576 tokens", "mistral-7b",
     dict(FQ_OFF, mode="qlora", batch=1, seq=24576), "|   QLoRA    |    True     |     1      |     24,576     |       22.54       |  7,809   |"),
]

rows = []
for r in json.load(open(src)):
    if r["id"] not in JOBS:
        continue
    model, job = JOBS[r["id"]]
    rows.append({
        "id": r["id"], "what": r["settings"].get("table_row") or r["settings"].get("task", ""),
        "source": r["source"], "quote": r["quote"], "measure": r["settings"].get("measure", ""),
        "model": model, "job": job, "quantity": "total",
        "value": r["value"], "unit": r["unit"], "expected": r["value"] * UNITS[r["unit"]], "tolerance": 0.15,
    })
by_id = {r["id"]: r for r in json.load(open(src))}
for new_id, base, value, unit, measure, model, job, quote in EXTRA:
    r = by_id[base]
    rows.append({"id": new_id, "what": measure, "source": r["source"] if quote is None else FQB + " (tables of the same benchmark)",
                 "quote": quote or r["quote"], "measure": measure, "model": model, "job": job, "quantity": "total", "value": value, "unit": unit,
                 "expected": value * UNITS[unit], "tolerance": 0.15})
# Published measured figures from other sources (found while calibrating; source and quote in
# scripts/measured_more.json, copied from the research notes with every setting checked at the
# cited commit). Each becomes a job with the run's settings.
# torchtitan Llama 3.1 8B (benchmarks/llama3_h100_202412_torchtitan.md): FSDP2 over fp32 shards,
# bf16 compute, batch 2 x 8192 packed, per-op selective AC, full fp32 loss, reserved GiB. At 9dec370
# the optimizer was foreach AdamW (config_manager.py --optimizer.fused default False; fused became the
# default in 6e49885, 2025-02-24), the loss was not compiled (train.py: "compiling loss function causes
# CUDA errors, turning off for now") and apply_fsdp kept the last block and the root's own group
# (embedding, norm, output) gathered (the "torchtitan_root" policy; [norm, output] as its own unit
# came with 83e6941, 2025-07-28).
TITAN_DEC24_DEFAULTS = {"optimizer_impl": "foreach", "compile_loss": False, "reshard_after_forward": "torchtitan_root"}
TITAN = dict({"framework": "torchtitan", "batch": 2, "seq": 8192}, **TITAN_DEC24_DEFAULTS)
# LitGPT finetune/lora.py (resource table, Oct 2023): bf16-true, LoRA r8 on query and value, dropout
# 0.05, AdamW (QLoRA: bitsandbytes PagedAdamW), no checkpointing, head and loss in 128-position chunks,
# the longest Alpaca sample (1304 tokens) forced into the first batch; max_memory_allocated / 1e9.
LITGPT = {"precision": "pure", "lora_rank": 8, "lora_targets": "q_proj,v_proj", "lora_dropout": 0.05,
          "adapter_dtype": "bf16", "optimizer_dtype": "bf16", "optimizer_impl": "foreach", "checkpointing": "none",
          "attention": "sdpa", "loss": "chunked", "loss_chunks": 11, "report": "allocated", "seq": 1304}
LITGPT_HUB = dict(LITGPT, lora_rank=32, seq=512, loss_chunks=4)
# Hugging Face's "model memory anatomy" and "efficient training on a single GPU" guides (Jan 2022, V100 16GB,
# transformers 4.15/4.16, torch 1.10): bert-large-uncased with a 2-label classification head in fp32 (fp16=True is
# native AMP over the fp32 weights), eager attention (BERT had no SDPA path then), 512 tokens. The Trainer then
# called model.zero_grad(), and torch 1.10's Module.zero_grad(set_to_none=False) zeroes the gradients in place:
# they live from the first step on, as persistent fp32 buffers do (fp32_gradients). adamw_hf steps parameter by
# parameter (no full-size temporary: optimizer_impl fused). nvidia-smi used memory: report device, with the CUDA
# context the guide measured on its own before loading the model (1343 MiB).
HF_DOCS = {"mode": "train", "dtype": "fp32", "precision": "pure", "head": "sequence_classification", "batch": 4,
           "seq": 512, "attention": "eager", "optimizer": "adamw", "optimizer_dtype": "fp32", "optimizer_impl": "fused",
           "fp32_gradients": True, "overhead_gb": round(1343 * 2**20 / 1e9, 5)}
HF_GA = dict(HF_DOCS, batch=1, grad_accum=4)
HF_ALL = dict(HF_GA, checkpointing="full", precision="autocast", dtype="fp16")
MORE_JOBS = {
    "HF-DOCS-BERT-01": ("bert-large-uncased", HF_DOCS),
    "HF-DOCS-BERT-02": ("bert-large-uncased", HF_GA),
    "HF-DOCS-BERT-03": ("bert-large-uncased", dict(HF_GA, checkpointing="full")),
    "HF-DOCS-BERT-04": ("bert-large-uncased", dict(HF_DOCS, precision="autocast", dtype="fp16")),
    "HF-DOCS-BERT-05": ("bert-large-uncased", HF_ALL),
    "HF-DOCS-BERT-06": ("bert-large-uncased", dict(HF_DOCS, optimizer="adafactor")),
    "HF-DOCS-BERT-07": ("bert-large-uncased", dict(HF_ALL, optimizer="adafactor")),
    "HF-DOCS-BERT-08": ("bert-large-uncased", dict(HF_DOCS, optimizer="adam_8bit")),
    "HF-DOCS-BERT-09": ("bert-large-uncased", dict(HF_ALL, optimizer="adam_8bit")),
    "TITAN-31-8B-01": ("llama-3.1-8b", dict(TITAN, gpus=8)),
    "TITAN-31-8B-02": ("llama-3.1-8b", dict(TITAN, gpus=8, compile=True)),
    "TITAN-31-8B-03": ("llama-3.1-8b", dict(TITAN, gpus=128)),
    "LITGPT-RT-L2-7B-LORA-MBS1": ("llama-2-7b", dict(LITGPT, mode="lora", batch=1)),
    "LITGPT-RT-L2-7B-LORA-MBS2": ("llama-2-7b", dict(LITGPT, mode="lora", batch=2)),
    "LITGPT-RT-L2-7B-QLORA-NF4": ("llama-2-7b", dict(LITGPT, mode="qlora", batch=1, paged_optimizer=True)),
    "LITGPT-RT-L2-13B-LORA-MBS1": ("llama-2-13b", dict(LITGPT, mode="lora", batch=1)),
    "LITGPT-RT-L2-13B-QLORA-NF4": ("llama-2-13b", dict(LITGPT, mode="qlora", batch=1, paged_optimizer=True)),
    "LITGPT-HUB-32-3B-LORA": ("llama-3.2-3b", dict(LITGPT_HUB, mode="lora", batch=1)),
    "LITGPT-HUB-32-3B-QLORA": ("llama-3.2-3b", dict(LITGPT_HUB, mode="qlora", batch=2, paged_optimizer=True)),
}
UNITS_MORE = {"GiB": 2**30, "GB": 1e9, "MiB": 2**20}
more = {r["id"]: r for r in json.load(open(os.path.join(here, "measured_more.json")))}
for rid, (model, job) in MORE_JOBS.items():
    r = more[rid]
    kind = r["measure"].split(" ")[0]
    job = dict(job, report=kind if kind in ("reserved", "device") else "allocated")
    rows.append({"id": rid, "what": r["settings"].get("framework", ""), "source": r["source"], "quote": r["quote"],
                 "measure": r["measure"] + "; " + r.get("unit_note", ""), "model": model, "job": job, "quantity": "total",
                 "value": r["value"], "unit": r["unit"], "expected": r["value"] * UNITS_MORE[r["unit"]], "tolerance": 0.15})
# Multi-GPU training runs (../shared/calibration/measured.json and scripts/measured_multigpu.json, each
# read at the commit its source cites). Each row is its framework's preset plus the settings the source
# states; the comment beside each says which default fills a gap.
MEGATRON_7B = "megatron-gpt-7b.config.json"
MEG_TINY = "megatron-gpt-tiny.config.json"  # tests/fixtures: the functional tests' 12-layer, 512-wide GPT  # tests/fixtures: the functional test's GPT (LayerNorm, GeLU MLP, GQA 8)
# benchmarks/llama3_h100_202412_torchtitan.md: torchtitan @9dec370 compiled each TransformerBlock (apply_compile) and
# not the loss (train.py: "# if job_config.training.compile: loss_fn = torch.compile(loss_fn)", commented out).
TITAN_DEC24 = dict({"framework": "torchtitan", "seq": 8192, "compile": True}, **TITAN_DEC24_DEFAULTS)
# torchtitan in 2025, by the commit each run names: fused AdamW (the preset's, since 6e49885); the loss
# compiled with training.compile from bbb1b61 (2025-04-02, components/loss.py build_cross_entropy_loss);
# the root's group kept gathered until 83e6941 (2025-07-28), [norm, output] after (the preset's policy).
TITAN_2025 = {"framework": "torchtitan", "seq": 8192, "compile": True}
TITAN_MAR25 = dict(TITAN_2025, compile_loss=False, reshard_after_forward="torchtitan_root")  # before bbb1b61
TITAN_JUN25 = dict(TITAN_2025, reshard_after_forward="torchtitan_root")                      # e7c0cae
TITAN_FP8 = dict(TITAN_DEC24, fp8="torchao")
# torchtune 0.1 (Apr 2024) full_finetune_distributed: FSDP1 FULL_SHARD, no mixed precision, rank 0 loads on CPU
# and FSDP(sync_module_states=True) broadcasts (recipe _setup_model at fef3ed1).
TT_FSDP1 = dict(TT7B, mode="train", zero=3, sharding_impl="fsdp1", sync_module_states=True)
MEG = {"framework": "megatron", "report": "allocated", "pp_stage": "last"}  # golden values: the last rank's allocated bytes
MULTI_JOBS = {
    # torchtune README @fef3ed1: Llama-2-7B full FT on 4 x RTX 4090, alpaca at 512 tokens, batch 2, AC, torch AdamW.
    "FT-TT-11": ("llama-2-7b", dict(TT_FSDP1, gpus=4), "total"),
    # torchtune README @30b8519: 70B_full.yaml (FSDP2, fsdp_cpu_offload True: CPUOffloadPolicy, fused AdamW on CPU),
    # batch 2 packed 2048, AC, compile; the preset's chunked loss and peak-active report fill the rest.
    "FT-TT-02": ("llama-3.1-70b", {"framework": "torchtune", "mode": "train", "gpus": 8, "zero": 3, "offload_params": True,
                                   "batch": 2, "seq": 2048, "compile": True}, "total"),
    # dgxc-benchmarking llama3.1 pretrain_llama31.py @741c886: NeMo llama3_8b recipe (performance mode), FP8 via
    # bf16_with_fp8_mixed (TE hybrid, fp8 params) with grad_reduce_in_fp32 = False; CP 2 over 8 GPUs, 1 x 8192.
    "H2-NEMO-L31-8B-FP8-ALLOC": ("llama-3.1-8b", {"framework": "nemo", "mode": "train", "gpus": 8, "cp": 2, "batch": 1,
                                                  "seq": 8192, "fp8": "te", "fp8_all_gather": True, "fp32_gradients": False,
                                                  "grad_accum": 16, "report": "allocated"}, "steady"),
    # Megatron-LM gpt3_7b_tp4_pp1_memory_speed: TP 4 without SP, distributed optimizer, 2 x 8192, no recompute.
    "H2-MEG-7B-TP4-PEAK": (MEGATRON_7B, dict(MEG, mode="train", gpus=8, tp=4, zero=1, batch=2, seq=8192, grad_accum=2), "total"),
}
MULTI_MORE = {
    "TITAN-31-8B-04": ("llama-3.1-8b", dict(TITAN_FP8, mode="train", gpus=8, batch=2), "total"),
    "TITAN-31-8B-128-2": ("llama-3.1-8b", dict(TITAN_DEC24, gpus=128, batch=2), "total"),
    "TITAN-31-8B-128-3": ("llama-3.1-8b", dict(TITAN_FP8, gpus=128, batch=2), "total"),
    # Table 2: local batch 1, full AC, the sequence grows with CP (32768 tokens per GPU).
    "TITAN-31-8B-CP1": ("llama-3.1-8b", dict(TITAN_FP8, gpus=8, cp=1, batch=1, seq=32768, checkpointing="full"), "total"),
    "TITAN-31-8B-CP2": ("llama-3.1-8b", dict(TITAN_FP8, gpus=8, cp=2, batch=1, seq=65536, checkpointing="full"), "total"),
    "TITAN-31-8B-CP4": ("llama-3.1-8b", dict(TITAN_FP8, gpus=8, cp=4, batch=1, seq=131072, checkpointing="full"), "total"),
    "TITAN-31-8B-CP8": ("llama-3.1-8b", dict(TITAN_FP8, gpus=8, cp=8, batch=1, seq=262144, checkpointing="full"), "total"),
    # Table 4: FSDP 32 x TP 8, local batch 16 per TP group, full AC; 2D-2 adds async TP (compile.enable_async_tensor_parallel).
    "TITAN-31-70B-2D-1": ("llama-3.1-70b", dict(TITAN_FP8, gpus=256, tp=8, batch=16, checkpointing="full"), "total"),
    "TITAN-31-70B-2D-2": ("llama-3.1-70b", dict(TITAN_FP8, gpus=256, tp=8, batch=16, checkpointing="full", async_tp=True), "total"),
    # Table 5 ("3D parallelism (FSDP + TP + PP) + torch.compile + Float8 + AsyncTP"): FSDP 8 x TP 8 x PP 8, local
    # batch 32 in the code's default 8 micro-batches of 4 (pipelining_utils.py: n_microbatches = pp degree), full AC,
    # float8 with FSDP float8 all-gather and async TP (llama3_405b.toml); the interleaved split is 2 stages per rank.
    "TITAN-31-405B-3D-1": ("llama-3.1-405b", dict(TITAN_FP8, gpus=512, tp=8, pp=8, batch=4, grad_accum=8, checkpointing="full",
                                                  fp8_all_gather=True, async_tp=True), "total"),
    "TITAN-31-405B-3D-2": ("llama-3.1-405b", dict(TITAN_FP8, gpus=512, tp=8, pp=8, batch=4, grad_accum=8, checkpointing="full",
                                                  fp8_all_gather=True, async_tp=True, pp_schedule="interleaved_1f1b"), "total"),
    # torchtitan e7c0cae (the run's own table): its --float8.* flags are that commit's Float8 config
    # (config_manager.py); the benchmark file was rewritten to --quantize.linear.float8.* by #1763 later.
    "TITAN-TRAINY-8B-H200-32": ("llama-3.1-8b", dict(TITAN_JUN25, fp8="torchao", gpus=32, batch=2, fp8_all_gather=True), "total"),
    "TITAN-TRAINY-8B-H200-64": ("llama-3.1-8b", dict(TITAN_JUN25, fp8="torchao", gpus=64, batch=2, fp8_all_gather=True), "total"),
    # torchao's H100 runs (torchao 890e0ac of 2025-02-28, README of 2025-03-12): torchtitan between 6e49885
    # and bbb1b61, the models/llama path of float8_training_benchmark.sh: fused AdamW, the loss not compiled.
    "AO-F8-L3-8B-H100-BF16": ("llama-3-8b", dict(TITAN_MAR25, gpus=8, batch=1), "total"),
    "AO-F8-L3-8B-H100-F8TW": ("llama-3-8b", dict(TITAN_MAR25, fp8="torchao", gpus=8, batch=1, fp8_all_gather=True), "total"),
    "AO-F8-L3-8B-H100-F8RW": ("llama-3-8b", dict(TITAN_MAR25, fp8="torchao", gpus=8, batch=1), "total"),
    # MI300X (2c8b594) and B200 (6fc499f), August 2025: the preset's policies (compiled loss, fused AdamW,
    # [norm, output] kept).
    "AO-F8-L3-8B-MI300X-BF16": ("llama-3-8b", dict(TITAN_2025, gpus=8, batch=1), "total"),
    "AO-MX-L3-8B-B200-BF16": ("llama-3-8b", dict(TITAN_2025, gpus=8, batch=1), "total"),
    # gpt3_7b_tp1_pp4_memory_speed: PP 4 interleaved with one layer per virtual stage (8 per rank), 4 micro-batches.
    "MEG-7B-TP1PP4-H100-PEAK": (MEGATRON_7B, dict(MEG, mode="train", gpus=8, pp=4, zero=1, batch=1, seq=8192, grad_accum=4,
                                                  pp_schedule="interleaved_1f1b", pp_virtual=8), "total"),
    "MEG-7B-TP1PP4-H100-ALLOC": (MEGATRON_7B, dict(MEG, mode="train", gpus=8, pp=4, zero=1, batch=1, seq=8192, grad_accum=4,
                                                   pp_schedule="interleaved_1f1b", pp_virtual=8), "steady"),
    "MEG-7B-TP1PP4-A100-PEAK": (MEGATRON_7B, dict(MEG, mode="train", gpus=8, pp=4, zero=1, batch=1, seq=8192, grad_accum=4,
                                                  pp_schedule="interleaved_1f1b", pp_virtual=8), "total"),
    # Megatron-LM functional tests' small GPT on 8 H100 (micro-batch 4, global 32, 1024 tokens; micro-batches per step
    # = 32 / (4 x DP)); each case's model_config.yaml: the local impl and --attention-backend unfused keep the s x s
    # scores (eager), the cp2 case runs flash without dropout on a NullTokenizer vocabulary.
    "MEG-TINY-TP1PP2-LOCAL": (MEG_TINY, dict(MEG, mode="train", gpus=8, pp=2, batch=4, seq=1024, grad_accum=2, attention="eager"), "total"),
    "MEG-TINY-TP1PP4-LOCAL": (MEG_TINY, dict(MEG, mode="train", gpus=8, pp=4, batch=4, seq=1024, grad_accum=4, attention="eager"), "total"),
    "MEG-TINY-TP1PP4-VP1": (MEG_TINY, dict(MEG, mode="train", gpus=8, pp=4, batch=4, seq=1024, grad_accum=4, attention="eager",
                                           pp_schedule="interleaved_1f1b", pp_virtual=3), "total"),
    "MEG-TINY-TP4-DISTOPT": (MEG_TINY, dict(MEG, mode="train", gpus=8, tp=4, zero=1, batch=4, seq=1024, grad_accum=4,
                                            attention="eager"), "total"),
    "MEG-TINY-TP2PP2CP2": ("megatron-gpt-tiny-nodrop.config.json", dict(MEG, mode="train", gpus=8, tp=2, pp=2, cp=2, batch=4,
                                                                        seq=1024, grad_accum=8, sequence_parallel=True), "total"),
    # moe/gpt3_mcore_te_tp2_pp2_ep4_etp1_memory_speed: TP 2 x PP 2 (4 virtual stages per rank) x EP 4 on 8 GPUs,
    # ETP 1, SP, distributed optimizer, unfused attention, 4 x 4096 tokens, 32 / (4 x DP 2) = 4 micro-batches.
    "MEG-MOE-MLA-TP2PP2EP4-H100-PEAK": ("megatron-moe-mla-proxy.config.json",
                                        dict(MEG, mode="train", gpus=8, tp=2, pp=2, ep=4, etp=1, zero=1, sequence_parallel=True,
                                             attention="unfused", batch=4, seq=4096, grad_accum=4, mtp_layers=1,
                                             pp_schedule="interleaved_1f1b", pp_virtual=4), "total"),
    "MEG-MOE-MLA-TP2PP2EP4-H100-ALLOC": ("megatron-moe-mla-proxy.config.json",
                                         dict(MEG, mode="train", gpus=8, tp=2, pp=2, ep=4, etp=1, zero=1, sequence_parallel=True,
                                              attention="unfused", batch=4, seq=4096, grad_accum=4, mtp_layers=1,
                                              pp_schedule="interleaved_1f1b", pp_virtual=4), "steady"),
    # Table 6 (4D): TP 8 x PP 8 (1F1B) x CP over FSDP's ranks, local batch 8 in the default 8 micro-batches of 1, the
    # sequence growing with CP; float8 with FSDP float8 all-gather and async TP (llama3_405b.toml), full AC.
    **{f"TITAN-31-405B-4D-CP{cp}": ("llama-3.1-405b", dict(TITAN_FP8, gpus=512, tp=8, pp=8, cp=cp, batch=1, grad_accum=8,
                                                            seq=32768 * cp, checkpointing="full", fp8_all_gather=True,
                                                            async_tp=True), "total") for cp in (1, 2, 4, 8)},
    # torchtitan PR #996 (runs of 2025-03-20 on torchtitan 0837410): llama3_8b.toml's defaults (local batch 1 x 8192,
    # per-op SAC, no compile) on run_train.sh's default 8 GPUs; fused AdamW, the root's group kept gathered. The full
    # loss, then the PR's chunked_cross_entropy_loss (8 chunks, each upcast on its own, eager).
    "TITAN-PR996-8B-FULLCE": ("llama-3-8b", dict(TITAN_MAR25, compile=False, gpus=8, batch=1), "total"),
    "TITAN-PR996-8B-CHUNKEDCE": ("llama-3-8b", dict(TITAN_MAR25, compile=False, gpus=8, batch=1, loss="chunked", loss_chunks=8), "total"),
    # Megatron-LM functional tests with Transformer Engine at d98e8a6 (8 H100, micro-batch 4, global 32, 1024 tokens; TE's
    # attention backend auto: flash with dropout 0.1; Adam without the distributed optimizer): DP 8 with full recompute;
    # 1F1B over 4 stages with untied embeddings (DP 2); TP 2 without SP x 1F1B over 2 stages (DP 2).
    **{f"MEG-TINY-TE-FULLRECOMP-{k}": (MEG_TINY, dict(MEG, mode="train", gpus=8, batch=4, seq=1024, grad_accum=1, checkpointing="full"), q)
       for k, q in (("PEAK", "total"), ("ALLOC", "steady"))},
    **{f"MEG-TINY-TE-TP1PP4-UNTIED-{k}": ("megatron-gpt-tiny-untied.config.json", dict(MEG, mode="train", gpus=8, pp=4, batch=4, seq=1024,
                                                                                       grad_accum=4), q)
       for k, q in (("PEAK", "total"), ("ALLOC", "steady"))},
    **{f"MEG-TINY-TE-TP2PP2-{k}": ("megatron-gpt-tiny-tp2.config.json", dict(MEG, mode="train", gpus=8, tp=2, pp=2, batch=4, seq=1024,
                                                                              grad_accum=4), q)
       for k, q in (("PEAK", "total"), ("ALLOC", "steady"))},
    # torchtune README @30b8519: 70B_lora.yaml (q, k, v at rank 16), FSDP2 over 8, batch 2 packed 2048, AC, compile.
    "LORA-TT-70B-8xA100": ("llama-3.1-70b", {"framework": "torchtune", "mode": "lora", "gpus": 8, "zero": 3, "batch": 2,
                                             "seq": 2048, "compile": True, "lora_rank": 16,
                                             "lora_targets": "q_proj,k_proj,v_proj"}, "total"),
    # 405B_qlora.yaml: rank 16 on q, k, v, o and the MLP, plain cross-entropy; the cell's "GB" is torchtune's GiB.
    "QLORA-TT-405B-8xA100": ("llama-3.1-405b", {"framework": "torchtune", "mode": "qlora", "gpus": 8, "zero": 3, "batch": 2,
                                                "seq": 2048, "compile": True, "lora_rank": 16, "loss": "full",
                                                "lora_targets": "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"}, "total"),
    # Lightning benchmark (Aug 2022): GPT-2 XL, DDP with fp16 AMP over fp32 weights / DeepSpeed ZeRO-3 fp16, HF gradient
    # checkpointing, eager attention; transformers 4.2x GPT2LMHeadModel computes the loss on fp16 logits and their
    # shifted copy, without an fp32 upcast.
    "PL-GPT2XL-DDP-4xA100": ("gpt2-xl", {"mode": "train", "gpus": 4, "precision": "autocast", "dtype": "fp16", "batch": 6,
                                         "seq": 1024, "checkpointing": "full", "attention": "eager", "report": "allocated",
                                         "optimizer_impl": "foreach", "loss": "shifted"}, "total"),
    "PL-GPT2XL-DSZ3-4xA100": ("gpt2-xl", {"framework": "deepspeed", "mode": "train", "gpus": 4, "zero": 3, "dtype": "fp16",
                                          "batch": 40, "seq": 1024, "checkpointing": "full", "attention": "eager",
                                          "report": "allocated", "loss": "shifted"}, "total"),
}
UNITS_MULTI = {"GiB": 2**30, "bytes": 1, "GB (1e9 bytes)": 1e9, "MiB": 2**20}
def multi_unit(unit):
    # Read each row's unit note: torchtitan/torchao "GB" columns and torchtune's are GiB; Lightning's "MB" is MiB.
    if unit.startswith("GiB") or "actually GiB" in unit or "computed in GiB" in unit: return 2**30
    if unit.startswith("bytes"): return 1
    if unit.startswith("MB (= MiB"): return 2**20
    if unit.startswith("GB (1e9"): return 1e9
    raise SystemExit("unit not read: " + unit)
def multi_row(r, model, job, quantity, what):
    row = {"id": r["id"], "what": what, "source": r["source"], "quote": r["quote"],
           "measure": r["settings"].get("measure", ""), "job": job, "quantity": quantity,
           "value": r["value"], "unit": r["unit"], "expected": r["value"] * multi_unit(r["unit"]), "tolerance": 0.15}
    if model.endswith(".json"): row["config_fixture"] = model
    else: row["model"] = model
    return row
for rid, (model, job, quantity) in MULTI_JOBS.items():
    r = by_id[rid]
    rows.append(multi_row(r, model, job, quantity, r["settings"].get("task", "")))
multi = {r["id"]: r for r in json.load(open(os.path.join(here, "measured_multigpu.json")))}
for rid, (model, job, quantity) in MULTI_MORE.items():
    r = multi[rid]
    rows.append(multi_row(r, model, job, quantity, r["settings"].get("task", "")))
# SMALL-HF-01 (the same guide): the model loaded in fp32 with .to("cuda") and nothing run, as nvidia-smi shows it:
# the weights and the CUDA context measured before loading (1343 MiB), not derived from this figure.
small = by_id["SMALL-HF-01"]
rows.append({"id": "SMALL-HF-01", "what": small["settings"]["task"], "source": small["source"], "quote": small["quote"],
             "measure": small["settings"]["measure"], "model": "bert-large-uncased",
             "job": {"mode": "inference", "dtype": "fp32", "head": "sequence_classification",
                     "overhead_gb": round(1343 * 2**20 / 1e9, 5)},
             "quantity": "weights_and_context", "value": small["value"], "unit": "MiB",
             "expected": small["value"] * 2**20, "tolerance": 0.05})
# Rows the model cannot reach yet, each with the reason; the test checks they still miss, so a
# fix that brings one within tolerance must also remove its mark here.
MISSES = {
    "LITGPT-HUB-32-3B-QLORA": "LitGPT quantizes lm_head too and, in the loss, dequantizes it to fp16 and copies it to bf16 "
                              "(both live at the peak: 4 x 128256 x 3072 bytes = 1.6 GB), and its 3B checkpoint "
                              "conversion unties the head; vramcalc keeps the head in bf16 as PEFT does: -26 %",
    "LORA-FQ-offload-b10": "-21 %: the benchmark's 16-bit LoRA rows reserve more per sample than its tensors need: "
                           "from batch 4 to 6 (same table, no offload) 16.14 -> 21.35 GiB, 2.6 GiB per sample, against "
                           "1.6 GiB per sample for its QLoRA rows (batch 4 -> 10: 11.22 -> 20.97) and for vramcalc's "
                           "tensors (checkpointed block inputs, fp32 logits and their loss: the same tensors whatever "
                           "the base's format). The extra GiB per sample is the caching allocator's reserved-but-free "
                           "memory (fsdp_qlora sets no expandable_segments); only its batch-1 ratio (10.22 / 9.16 "
                           "GiB) is published, and it is the slack used for every fsdp_qlora row",
    "TITAN-31-405B-3D-1": "-18 %: torchtitan issue #773 logs the same pair (1F1B 82.46 GiB, interleaved 72.69 GiB). Read at "
                          "torch 1963fc8 / torchtitan 9dec370 the two schedules hold the same on the rank that peaks: "
                          "generate_split_points gives rank 0 15 of the 126 layers either way (1F1B: 15; interleaved: "
                          "7 + 8), Schedule1F1B's warmup min(m, p - r) = 8 and ScheduleInterleaved1F1B's "
                          "min((v - 1) p + 2 (p - 1 - r), m v) = 16 chunks both run every micro-batch's forward "
                          "before the first backward, FSDP keeps the stage gathered with fp32 gradients accumulated "
                          "under both (reshard_after_forward False under PP), and the receive buffers are allocated "
                          "per micro-batch in both (_prepare_forward_infra / _prepare_backward_infra). No tensor the "
                          "code allocates is larger under 1F1B, so the 9.8 GiB it reserves beyond the interleaved run "
                          "is not modelled; the interleaved row (TITAN-31-405B-3D-2) is within 7.2 %",
    "TITAN-31-405B-4D-CP8": "-20 %: the same runs at CP 1, 2 and 4 are within 12 % (-10.4, -10.6, -12.0 %); at CP 8 (FSDP 1) the "
                            "measured peak grows 9.6 GiB over CP 1 with the same 32,768 tokens per GPU, where the ring "
                            "attention's buffers read from torch's _templated_ring_attention (all-gather rotater: the "
                            "sequence's K and V for one layer, fp32 dq/dk/dv) add 0.47 GB; FSDP still shards the states "
                            "over dp_shard x cp = 8 ranks. The growth is not modelled; these runs are 1F1B, like "
                            "TITAN-31-405B-3D-1",
    "MEG-TINY-TE-TP2PP2-ALLOC": "-21 %: a fixed 0.11 GB stays allocated after the step in all three Transformer Engine runs of "
                                "this model (DP 8 with full recompute 0.106 GB, PP 4 untied 0.112 GB, TP 2 x PP 2 0.110 GB "
                                "beyond vramcalc's states), whatever the parameters per GPU (which differ 1.8 x): an "
                                "allocation outside the parameters, gradients and optimizer states that vramcalc counts, "
                                "21 % of this 0.52 GB figure and 8 to 15 % of the others",
}
for r in rows:
    if r["id"] in MISSES:
        r["known_miss"] = MISSES[r["id"]]
out = os.path.join(here, "..", "tests", "validation", "measured.json")
json.dump({"rows": rows}, open(out, "w"), indent=1, ensure_ascii=False)
print(f"{len(rows)} rows -> {out}")
