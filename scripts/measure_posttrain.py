#!/usr/bin/env python3
"""Measures TRL post-training steps on one GPU, phase by phase (issue 36).

Runs TRL's GRPOTrainer and DPOTrainer with PEFT LoRA on small catalog models (random weights built from
models.json's configs, a word-level tokenizer built here: nothing is downloaded, the device machine reaches no
network) and records, for each phase of a step, torch.cuda.max_memory_allocated and max_memory_reserved with the
peak statistics reset when the phase starts:
  - GRPO: generation (the policy's own model.generate, TRL's default use_vllm=False; or a colocated vLLM with
    MEASURE_VLLM=1 when vllm is installed), scoring (old / reference log-probs) and the training step;
  - DPO: the reference log-probs (precomputed or per step) and the training step.
Every completion runs to max_completion_length (min_new_tokens), every prompt is max_prompt_length tokens, so the
figures are the settings' and not the data's. Each result is written with the vramcalc job fields that describe
the run, ready to become rows of tests/validation/posttrain.json (quantity "total" with report "allocated" or
"reserved"; phases by key). vramcalc depends on nothing this script writes.

Needs: a CUDA GPU, torch, transformers, peft, trl (>= 0.19), datasets, tokenizers; vllm for MEASURE_VLLM=1.

usage: [MEASURE_STEPS=2] [MEASURE_VLLM=1] scripts/measure_posttrain.py OUT.json [case-id ...]"""
import gc, json, os, platform, sys, time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG = {m["id"]: m for m in json.load(open(os.path.join(HERE, "..", "models.json")))["models"]}
GiB = 2**30
STEPS = int(os.environ.get("MEASURE_STEPS", "2"))
USE_VLLM = os.environ.get("MEASURE_VLLM") == "1"

# id, catalog model, trainer, settings. Small models so a case takes seconds; LoRA r16 on every linear (PEFT
# "all-linear"), bf16 weights (model_init dtype bfloat16), gradient checkpointing (TRL's default).
CASES = [
    ("PT-GRPO-Q25-05B-LORA-G8-P256-C512", "qwen2.5-0.5b", "grpo", dict(batch=8, G=8, prompt=256, completion=512)),
    ("PT-GRPO-Q25-05B-LORA-G8-P256-C1024", "qwen2.5-0.5b", "grpo", dict(batch=8, G=8, prompt=256, completion=1024)),
    ("PT-GRPO-Q25-15B-LORA-G4-P512-C512", "qwen2.5-1.5b", "grpo", dict(batch=4, G=4, prompt=512, completion=512)),
    ("PT-GRPO-L32-1B-LORA-G8-P256-C512-BETA", "llama-3.2-1b", "grpo", dict(batch=8, G=8, prompt=256, completion=512, beta=0.04)),
    ("PT-DPO-Q25-05B-LORA-B4-S1024", "qwen2.5-0.5b", "dpo", dict(batch=4, seq=1024)),
    ("PT-DPO-L32-1B-LORA-B2-S2048", "llama-3.2-1b", "dpo", dict(batch=2, seq=2048)),
    ("PT-DPO-L32-1B-LORA-B2-S2048-PRECOMPUTE", "llama-3.2-1b", "dpo", dict(batch=2, seq=2048, precompute=True)),
    ("PT-DPO-Q25-05B-FULL-B2-S1024", "qwen2.5-0.5b", "dpo", dict(batch=2, seq=1024, full=True)),
]


def tokenizer_for(vocab):
    """A word-level tokenizer with the model's vocabulary: token i is the word 't<i>'."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    tok = Tokenizer(models.WordLevel({f"t{i}": i for i in range(vocab)}, unk_token="t0"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="t0", pad_token="t1", eos_token="t2", bos_token="t3")
    fast.chat_template = None
    return fast


def text(n, offset=10):
    return " ".join(f"t{offset + (i * 7919) % 20000}" for i in range(n))


def build(model_id, full):
    from transformers import AutoConfig, AutoModelForCausalLM
    config = AutoConfig.for_model(**CATALOG[model_id]["config"])
    model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16, attn_implementation="sdpa").cuda()
    return model, config


class Phases:
    """Peak memory per phase: reset when a phase starts, read when it ends."""

    def __init__(self):
        self.peaks = {}

    def wrap(self, obj, name, phase):
        inner = getattr(obj, name)

        def wrapped(*args, **kwargs):
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            out = inner(*args, **kwargs)
            torch.cuda.synchronize()
            a, r = torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved()
            old = self.peaks.get(phase, (0, 0))
            self.peaks[phase] = (max(old[0], a), max(old[1], r))
            return out

        setattr(obj, name, wrapped)


def lora():
    from peft import LoraConfig
    return LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", task_type="CAUSAL_LM")


def run_grpo(model_id, s, out_dir):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer
    model, config = build(model_id, False)
    tok = tokenizer_for(config.vocab_size)
    data = Dataset.from_dict({"prompt": [text(s["prompt"], i) for i in range(64)]})
    args = GRPOConfig(output_dir=out_dir, per_device_train_batch_size=s["batch"], num_generations=s["G"],
                      max_completion_length=s["completion"], max_steps=STEPS, bf16=True, gradient_checkpointing=True,
                      beta=s.get("beta", 0.0), use_vllm=USE_VLLM, vllm_mode="colocate", report_to=[], logging_steps=1,
                      generation_kwargs={"min_new_tokens": s["completion"]}, save_strategy="no")
    trainer = GRPOTrainer(model=model, reward_funcs=lambda completions, **_: [0.0] * len(completions), args=args,
                          train_dataset=data, processing_class=tok, peft_config=lora())
    phases = Phases()
    phases.wrap(trainer, "_generate_single_turn" if hasattr(trainer, "_generate_single_turn") else "_generate_and_score_completions",
                "generation")
    if hasattr(trainer, "_get_per_token_logps_and_entropies"):
        phases.wrap(trainer, "_get_per_token_logps_and_entropies", "scoring")  # also runs inside the loss: see training
    phases.wrap(trainer, "training_step", "training")
    trainer.train()
    job = {"mode": "grpo", "policy": "lora", "dtype": "bf16", "batch": s["batch"], "num_generations": s["G"],
           "max_prompt_length": s["prompt"], "max_completion_length": s["completion"], "beta": s.get("beta", 0.0),
           "use_vllm": USE_VLLM, "gpu": "h200", "attention": "sdpa"}
    return job, phases.peaks


def run_dpo(model_id, s, out_dir):
    from datasets import Dataset
    from trl import DPOConfig, DPOTrainer
    model, config = build(model_id, s.get("full", False))
    tok = tokenizer_for(config.vocab_size)
    half = s["seq"] // 2
    data = Dataset.from_dict({"prompt": [text(half, i) for i in range(64)],
                              "chosen": [text(s["seq"] - half, i + 1) for i in range(64)],
                              "rejected": [text(s["seq"] - half, i + 2) for i in range(64)]})
    args = DPOConfig(output_dir=out_dir, per_device_train_batch_size=s["batch"], max_length=s["seq"], max_steps=STEPS,
                     bf16=True, gradient_checkpointing=True, precompute_ref_log_probs=s.get("precompute", False),
                     report_to=[], logging_steps=1, save_strategy="no")
    trainer = DPOTrainer(model=model, args=args, train_dataset=data, processing_class=tok,
                         peft_config=None if s.get("full") else lora())
    phases = Phases()
    for name in ("compute_ref_log_probs", "_compute_ref_log_probs"):
        if hasattr(trainer, name):
            phases.wrap(trainer, name, "scoring")
    phases.wrap(trainer, "training_step", "training")
    trainer.train()
    job = {"mode": "dpo", "policy": "full" if s.get("full") else "lora", "dtype": "bf16", "batch": s["batch"], "seq": s["seq"],
           "precompute_ref_log_probs": s.get("precompute", False), "gpu": "h200", "attention": "sdpa"}
    return job, phases.peaks


def main():
    if len(sys.argv) < 2 or not torch.cuda.is_available():
        sys.exit(__doc__)
    out, only = sys.argv[1], set(sys.argv[2:])
    import transformers, trl
    results = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "transformers": transformers.__version__,
               "trl": trl.__version__, "python": platform.python_version(), "steps": STEPS, "cases": []}
    for case_id, model_id, kind, s in CASES:
        if only and case_id not in only:
            continue
        started = time.time()
        try:
            job, peaks = (run_grpo if kind == "grpo" else run_dpo)(model_id, s, f"/tmp/{case_id}")
            results["cases"].append({"id": case_id, "model": model_id, "job": job, "seconds": round(time.time() - started, 1),
                                     "phases": {k: {"allocated_gib": a / GiB, "reserved_gib": r / GiB} for k, (a, r) in peaks.items()}})
        except Exception as e:  # a case that fails is recorded, the rest still run
            results["cases"].append({"id": case_id, "model": model_id, "error": f"{type(e).__name__}: {e}"})
        print(json.dumps(results["cases"][-1]), flush=True)
        gc.collect()
        torch.cuda.empty_cache()
        with open(out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
