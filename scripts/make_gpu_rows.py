#!/usr/bin/env python3
"""Writes tests/validation/gpu_measured.json: the runs that scripts/measure_gpu.py
measured on our own GPU (tests/validation/gpu_runs/*.json), each expressed as a
vramcalc job with only the settings the run used. Every run gives three rows:
peak allocated (torch.cuda.max_memory_allocated), peak reserved
(max_memory_reserved) and the weights (allocated bytes once the model is built).
No row takes an input derived from the figure it checks: the jobs name the
recipe's settings, never a measured byte count.
usage: scripts/make_gpu_rows.py"""
import glob, json, os

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..")
SCRIPT = "scripts/measure_gpu.py"

# The recipes of measure_gpu.py as vramcalc job fields (the framework preset fills the rest).
# hf: transformers Trainer(bf16=True) as measure_gpu.py runs it: fp32 weights, torch.autocast,
# torch.optim.AdamW foreach, ForCausalLMLoss's fp32 logits, SDPA.
# Pure bf16 (weights="bf16", no autocast): the weights, gradients and AdamW states in bf16, no
# master copy, fused AdamW: the torchtune preset without its chunked loss and checkpointing.
def job_of(case):
    s, recipe = case["settings"], case["recipe"]
    ckpt = "full" if s.get("ckpt") else "none"
    if recipe == "generate":
        job = {"mode": "inference", "engine": "hf", "batch": s["batch"], "seq": s["prompt"], "new_tokens": s["new"],
               "dtype": "bf16"}
        if "cache" in s:
            job["cache_implementation"] = s["cache"]
        return job
    job = {"batch": s["batch"], "seq": s["seq"], "checkpointing": ckpt}
    if s.get("attn") == "eager":
        job["attention"] = "eager"
    if recipe == "lora":
        job.update(framework="hf", mode="lora", lora_rank=s["rank"],
                   lora_targets="q_proj,v_proj" if s["targets"] == "qv" else "all-linear")
        return job
    if recipe == "train_s2s":
        job.update(encoder_seq=s["seq"], seq=s["target"])
    if recipe == "train_speech":
        job.update(encoder_seq=s["seq"] // 2, seq=s["target"])
    job.update(framework="hf", mode="train", optimizer_impl=s["opt"])
    if s["weights"] == "bf16" and not s["autocast"]:
        job.update(precision="pure", optimizer_dtype="bf16")
    elif not s["autocast"]:
        job.update(dtype="fp32", precision="pure")
    elif s.get("amp_dtype") == "fp16":
        job.update(dtype="fp16")
    return job


# Rows that miss, each with why. None is tuned away.
KNOWN_MISS = {
    "H200-T5-BASE-FP32-B8-S512-T128-WEIGHTS":
        "+10.8 %: transformers 5.17 built T5ForConditionalGeneration from this config with lm_head tied to the shared "
        "embedding (model.parameters() counts 222,903,552); flan-t5-base's config says tie_word_embeddings false and "
        "its checkpoint holds 247,577,856 parameters with its own lm_head (24.67 M more), which vramcalc counts",
}


def main():
    rows = []
    for path in sorted(glob.glob(os.path.join(root, "tests", "validation", "gpu_runs", "*.json"))):
        run = json.load(open(path))
        v = run["versions"]
        where = (f"{os.path.relpath(path, root)} ({SCRIPT} on 1 x {v['gpu']}, torch {v['torch']}, "
                 f"transformers {v['transformers']}, peft {v.get('peft', '-')})")
        for case in run["cases"]:
            if "max_allocated" not in case:
                continue
            job = job_of(case)
            for quantity, key, report, what in (
                    ("total", "max_allocated", "allocated", "peak allocated (torch.cuda.max_memory_allocated)"),
                    ("total", "max_reserved", "reserved", "peak reserved (torch.cuda.max_memory_reserved)"),
                    ("weights", "weights_allocated", None, "allocated bytes once the model is built")):
                j = dict(job)
                if report:
                    j["report"] = report
                    j["overhead_gb"] = 0  # torch's counters leave out the CUDA context
                suffix = {"max_allocated": "ALLOC", "max_reserved": "RESERVED", "weights_allocated": "WEIGHTS"}[key]
                rows.append({
                    "id": f"{case['id']}-{suffix}", "what": f"{case['recipe']} {case['settings']}", "source": where,
                    "quote": f"\"{key}\": {case[key]}", "measure": what, "model": case["model"], "job": j,
                    "quantity": quantity, "value": case[key], "unit": "bytes", "expected": float(case[key]),
                    "tolerance": 0.15 if quantity == "total" else 0.01,
                })
                if rows[-1]["id"] in KNOWN_MISS:
                    rows[-1]["known_miss"] = KNOWN_MISS[rows[-1]["id"]]
    out = os.path.join(root, "tests", "validation", "gpu_measured.json")
    with open(out, "w") as f:
        json.dump({"rows": rows}, f, indent=1)
        f.write("\n")
    print(f"{out}: {len(rows)} rows")


if __name__ == "__main__":
    main()
