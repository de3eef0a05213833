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
# LlamaForCausalLM returned fp32 logits (lm_head(...).float()) and shifted a copy for the loss;
# train.py loads on rank 0 and FSDP(sync_module_states=True) puts the whole model on every rank
# before sharding ("reserved_after_model_wrap" 3.72 GiB per GPU in the same benchmark). The
# allocator slack is the one measured there: peak reserved 10.22 GiB over peak allocated 9.16 GiB.
FQ = {"gpus": 2, "zero": 3, "precision": "pure", "adapter_dtype": "bf16", "checkpointing": "full",
      "attention": "sdpa", "loss": "full_fp32", "lora_rank": 64, "lora_dropout": 0.1, "optimizer_impl": "foreach",
      "lora_targets": "q_proj,k_proj,v_proj,gate_proj,up_proj,down_proj", "report": "reserved",
      "fragmentation": round(10.22 / 9.16 - 1, 3)}
# QLoRA: the quantized model is whole on every rank before FSDP shards it (sync_module_states):
# "weights after FSDP wrap about 3.72GiB (see reserved_after_model_wrap)" per GPU, for a 7B model
# whose NF4 weights + 16-bit embeddings total 3.7 GiB; that memory stays reserved.
FQ_Q = dict(FQ, load_unsharded=True)

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
    "QLORA-TT-04": ("llama-2-7b", dict(TT7B, mode="qlora", lora_rank=8,
                                       lora_targets="q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj")),
    "LORA-FQ-01": ("llama-2-7b", dict(FQ, mode="lora", batch=1, seq=2048)),
    "LORA-FQ-02": ("llama-2-7b", dict(FQ, mode="lora", batch=6, seq=2048)),
    "QLORA-FQ-01": ("llama-2-7b", dict(FQ_Q, mode="qlora", batch=1, seq=512)),
    "QLORA-FQ-02": ("llama-2-7b", dict(FQ_Q, mode="qlora", batch=1, seq=2048)),
}

# Measured figures quoted in the same sources as the rows above (their notes and quotes).
EXTRA = [
    ("LORA-FQ-01-allocated", "LORA-FQ-01", 9.16, "GiB", "peak allocated (torch.cuda.max_memory_allocated), ctx 2048",
     dict(FQ, mode="lora", batch=1, seq=2048, report="allocated")),
    ("LORA-FQ-ctx512-allocated", "LORA-FQ-01", 8.28, "GiB", "peak allocated, ctx 512",
     dict(FQ, mode="lora", batch=1, seq=512, report="allocated")),
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
for new_id, base, value, unit, measure, job in EXTRA:
    r = by_id[base]
    rows.append({"id": new_id, "what": measure, "source": r["source"], "quote": r["quote"], "measure": measure,
                 "model": "llama-2-7b", "job": job, "quantity": "total", "value": value, "unit": unit,
                 "expected": value * UNITS[unit], "tolerance": 0.15})
# Rows the model cannot reach yet, each with the reason; the test checks they still miss, so a
# fix that brings one within tolerance must also remove its mark here.
MISSES = {
    "QLORA-TT-04": "reserved memory left from model init dominates: the same tutorial measures 9.13 GB reserved "
                   "after init (bf16 weights created then quantized); vramcalc does not model loading",
    "QLORA-FQ-02": "the memory reserved while loading the whole quantized model is partly reused by the step's "
                   "tensors; vramcalc adds it (right at 512 tokens, +8.6 %) where reuse absorbs the growth to "
                   "2048 tokens (measured +0.23 GiB)",
}
for r in rows:
    if r["id"] in MISSES:
        r["known_miss"] = MISSES[r["id"]]
out = os.path.join(here, "..", "tests", "validation", "measured.json")
json.dump({"rows": rows}, open(out, "w"), indent=1, ensure_ascii=False)
print(f"{len(rows)} rows -> {out}")
