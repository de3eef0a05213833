#!/usr/bin/env python3
"""Measures real GPU memory of training and generate steps on one GPU.

Builds each model from its catalog config (models.json; random weights, nothing
downloaded), runs a few real steps of a recipe and records
torch.cuda.max_memory_allocated and max_memory_reserved, plus the allocated bytes
after the model is built (the weights) and after the last step (the states).
Never run in CI: it needs a CUDA GPU, transformers and peft. The figures it
wrote are committed as measured rows (tests/validation/gpu_measured.json via
scripts/make_gpu_rows.py).

Training cases also record each step's GPU wall time (CUDA events) and, with MEASURE_PROFILE=1,
the last step's CUDA kernel time by kind (GEMM, attention, optimizer, loss, other) from
torch.profiler: a real step's per-op split, for checking the cluster planner's roofline.

With --speed it measures the cluster planner's mechanisms instead (scripts/measure_speed.py): sustained against
burst GEMMs at Llama shapes, FlashAttention forward and backward, a Llama block's training step against the sum of
its kernels, and decode steps at batch 1-64 with and without CUDA graphs. --dry-run prints what --speed would run
(no torch or GPU needed); --cpu runs the speed probes at toy sizes on the CPU to check them.

usage: [MEASURE_STEPS=3] [MEASURE_PROFILE=1] scripts/measure_gpu.py OUT.json [case-id ...]
       scripts/measure_gpu.py --speed [--dry-run | --cpu] [--window SECONDS] [--probes gemm,attention,block,decode] OUT.json"""
import gc, json, os, platform, sys, time

try:
    import torch
except ImportError:  # --speed --dry-run needs neither torch nor a GPU
    torch = None

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
CATALOG = {m["id"]: m for m in json.load(open(os.path.join(HERE, "..", "models.json")))["models"]}
DEADLINE = time.time() + float(os.environ.get("MEASURE_SECONDS", "420"))
GiB = 2**30

# Each case: id, catalog model, recipe, and the recipe's settings. The recipes are written as
# the frameworks run them (the comments name what each stands for); vramcalc's job fields for
# each are written beside the figures by scripts/make_gpu_rows.py.
CASES = [
    # transformers Trainer(bf16=True) with optim adamw_torch: fp32 weights under torch.autocast,
    # torch.optim.AdamW (foreach), logits upcast by ForCausalLMLoss.
    ("H200-L32-1B-HF-B4-S2048", "llama-3.2-1b", "train", dict(weights="fp32", autocast=True, batch=4, seq=2048, ckpt=False, opt="foreach")),
    ("H200-L32-1B-HF-B4-S2048-CKPT", "llama-3.2-1b", "train", dict(weights="fp32", autocast=True, batch=4, seq=2048, ckpt=True, opt="foreach")),
    # Pure bf16 (torchtune's full_finetune_single_device without chunked loss): bf16 weights and
    # AdamW states, fused AdamW.
    ("H200-L32-1B-BF16-B4-S2048", "llama-3.2-1b", "train", dict(weights="bf16", autocast=False, batch=4, seq=2048, ckpt=False, opt="fused")),
    ("H200-Q25-05B-HF-B8-S1024", "qwen2.5-0.5b", "train", dict(weights="fp32", autocast=True, batch=8, seq=1024, ckpt=False, opt="foreach")),
    ("H200-Q3-06B-BF16-B8-S2048-CKPT", "qwen3-0.6b", "train", dict(weights="bf16", autocast=False, batch=8, seq=2048, ckpt=True, opt="fused")),
    # PEFT LoRA (autocast_adapter_dtype: fp32 adapters) over bf16 weights, Trainer(bf16=True).
    ("H200-L32-1B-LORA16-B4-S2048", "llama-3.2-1b", "lora", dict(weights="bf16", autocast=True, batch=4, seq=2048, ckpt=False, rank=16, targets="all")),
    ("H200-L31-8B-LORA16-B2-S4096-CKPT", "llama-3.1-8b", "lora", dict(weights="bf16", autocast=True, batch=2, seq=4096, ckpt=True, rank=16, targets="all")),
    ("H200-L31-8B-LORA8-B1-S2048", "llama-3.1-8b", "lora", dict(weights="bf16", autocast=True, batch=1, seq=2048, ckpt=False, rank=8, targets="qv")),
    # Pure bf16 full fine-tune of an 8B with checkpointing (bf16 AdamW states: 8 bytes a parameter).
    ("H200-L31-8B-BF16-B1-S4096-CKPT", "llama-3.1-8b", "train", dict(weights="bf16", autocast=False, batch=1, seq=4096, ckpt=True, opt="fused")),
    # Encoders and encoder-decoders under Trainer: fp32 weights, AdamW.
    ("H200-BERT-L-MLM-FP32-B4-S512", "bert-large-uncased", "train_mlm", dict(weights="fp32", autocast=False, batch=4, seq=512, ckpt=False, opt="foreach")),
    ("H200-BERT-L-MLM-AMP16-B4-S512", "bert-large-uncased", "train_mlm", dict(weights="fp32", autocast=True, amp_dtype="fp16", batch=4, seq=512, ckpt=False, opt="foreach")),
    ("H200-T5-BASE-FP32-B8-S512-T128", "flan-t5-base", "train_s2s", dict(weights="fp32", autocast=False, batch=8, seq=512, target=128, ckpt=False, opt="foreach")),
    # transformers generate, greedy, DynamicCache, bf16 weights, SDPA.
    ("H200-L31-8B-GEN-B1-P4096-N128", "llama-3.1-8b", "generate", dict(batch=1, prompt=4096, new=128)),
    ("H200-L31-8B-GEN-B8-P1024-N128", "llama-3.1-8b", "generate", dict(batch=8, prompt=1024, new=128)),
    ("H200-L32-1B-GEN-B16-P2048-N64", "llama-3.2-1b", "generate", dict(batch=16, prompt=2048, new=64)),
    ("H200-Q25-7B-GEN-B4-P4096-N64", "qwen2.5-7b", "generate", dict(batch=4, prompt=4096, new=64)),
    ("H200-Q15MOE-GEN-B1-P2048-N64", "qwen1.5-moe-a2.7b", "generate", dict(batch=1, prompt=2048, new=64)),
    # Second round: eager attention, other families, static cache, sliding windows, MoE LoRA.
    ("H200-L32-1B-HF-EAGER-B2-S2048", "llama-3.2-1b", "train", dict(weights="fp32", autocast=True, batch=2, seq=2048, ckpt=False, opt="foreach", attn="eager")),
    ("H200-L32-3B-HF-B2-S4096-CKPT", "llama-3.2-3b", "train", dict(weights="fp32", autocast=True, batch=2, seq=4096, ckpt=True, opt="foreach")),
    ("H200-L31-8B-BF16-B4-S4096-CKPT", "llama-3.1-8b", "train", dict(weights="bf16", autocast=False, batch=4, seq=4096, ckpt=True, opt="fused")),
    ("H200-GEMMA3-1B-BF16-B4-S2048", "gemma-3-1b", "train", dict(weights="bf16", autocast=False, batch=4, seq=2048, ckpt=False, opt="fused")),
    ("H200-PHI3-MINI-BF16-B2-S4096-CKPT", "phi-3-mini", "train", dict(weights="bf16", autocast=False, batch=2, seq=4096, ckpt=True, opt="fused")),
    ("H200-GPT2-HF-B8-S1024", "gpt2", "train", dict(weights="fp32", autocast=True, batch=8, seq=1024, ckpt=False, opt="foreach")),
    ("H200-BLOOM-560M-HF-B8-S1024", "bloom-560m", "train", dict(weights="fp32", autocast=True, batch=8, seq=1024, ckpt=False, opt="foreach", attn="eager")),
    ("H200-OPT-1.3B-HF-B8-S2048", "opt-1.3b", "train", dict(weights="fp32", autocast=True, batch=8, seq=2048, ckpt=False, opt="foreach")),
    ("H200-MISTRAL-7B-LORA16-B4-S2048-CKPT", "mistral-7b-v0.3", "lora", dict(weights="bf16", autocast=True, batch=4, seq=2048, ckpt=True, rank=16, targets="all")),
    ("H200-Q25-7B-LORA16-B4-S4096-CKPT", "qwen2.5-7b", "lora", dict(weights="bf16", autocast=True, batch=4, seq=4096, ckpt=True, rank=16, targets="all")),
    ("H200-Q15MOE-LORA16QV-B1-S2048-CKPT", "qwen1.5-moe-a2.7b", "lora", dict(weights="bf16", autocast=True, batch=1, seq=2048, ckpt=True, rank=16, targets="qv")),
    ("H200-BART-BASE-FP32-B8-S512-T128", "bart-base", "train_s2s", dict(weights="fp32", autocast=False, batch=8, seq=512, target=128, ckpt=False, opt="foreach")),
    ("H200-MODERNBERT-B-MLM-AMPBF16-B16-S1024", "modernbert-base", "train_mlm", dict(weights="fp32", autocast=True, batch=16, seq=1024, ckpt=False, opt="foreach")),
    ("H200-DEBERTA3-B-CLS-FP32-B16-S512", "deberta-v3-base", "train_cls", dict(weights="fp32", autocast=False, batch=16, seq=512, ckpt=False, opt="foreach")),
    ("H200-WHISPER-S-FP32-B8-T128", "whisper-small", "train_speech", dict(weights="fp32", autocast=False, batch=8, seq=3000, target=128, ckpt=False, opt="foreach")),
    ("H200-L31-8B-GEN-STATIC-B1-P4096-N128", "llama-3.1-8b", "generate", dict(batch=1, prompt=4096, new=128, cache="static")),
    ("H200-GEMMA3-1B-GEN-B8-P4096-N64", "gemma-3-1b", "generate", dict(batch=8, prompt=4096, new=64)),
    ("H200-Q3-30B-A3B-GEN-B1-P2048-N32", "qwen3-30b-a3b", "generate", dict(batch=1, prompt=2048, new=32)),
]


def dtype_of(name):
    return {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[name]


def build(model_id, auto_cls, dtype, attn="sdpa"):
    import transformers
    cfg_dict = dict(CATALOG[model_id]["config"])
    cfg_dict.pop("quantization_config", None)
    cfg = transformers.AutoConfig.for_model(**cfg_dict)
    cls = getattr(transformers, auto_cls)
    with torch.device("cuda"):
        model = cls.from_config(cfg, dtype=dtype, attn_implementation=attn)
    return model, cfg


def kernel_kinds(prof):
    """CUDA kernel time of one profiled step, grouped by what the kernel's name says it is."""
    kinds = {"gemm": ("gemm", "cutlass", "sm90_xmma", "nvjet", "cublas"), "attention": ("flash", "fmha", "attention"),
             "optimizer": ("adam", "multi_tensor"), "loss": ("cross_entropy", "log_softmax", "nll_loss")}
    out = {}
    for e in prof.key_averages():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        name = e.key.lower()
        kind = next((k for k, words in kinds.items() if any(w in name for w in words)), "other")
        out[kind] = out.get(kind, 0.0) + e.device_time_total / 1e6
    return {k: round(v, 6) for k, v in sorted(out.items())}


def fresh():
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    return torch.cuda.memory_allocated()


def tokens(cfg, batch, seq):
    vocab = getattr(cfg, "vocab_size", 32000)
    return torch.randint(0, vocab, (batch, seq), device="cuda")


def run_train(case_id, model_id, recipe, s):
    auto = {"train": "AutoModelForCausalLM", "lora": "AutoModelForCausalLM",
            "train_mlm": "AutoModelForMaskedLM", "train_s2s": "AutoModelForSeq2SeqLM",
            "train_cls": "AutoModelForSequenceClassification", "train_speech": "AutoModelForSpeechSeq2Seq"}[recipe]
    base = fresh()
    model, cfg = build(model_id, auto, dtype_of(s["weights"]), s.get("attn", "sdpa"))
    model.config.use_cache = False
    if recipe == "lora":
        import peft
        targets = ["q_proj", "v_proj"] if s["targets"] == "qv" else "all-linear"
        model = peft.get_peft_model(model, peft.LoraConfig(r=s["rank"], lora_alpha=2 * s["rank"], lora_dropout=0.0,
                                                           target_modules=targets, task_type="CAUSAL_LM"))
    if s["ckpt"]:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if recipe == "lora":
            model.enable_input_require_grads()
    model.train()
    torch.cuda.synchronize()
    weights = torch.cuda.memory_allocated() - base
    params = [p for p in model.parameters() if p.requires_grad]
    trainable = sum(p.numel() for p in params)
    opt_kw = {"fused": True} if s.get("opt") == "fused" else {"foreach": True}
    opt = torch.optim.AdamW(params, lr=1e-5, **opt_kw)
    amp = dtype_of(s.get("amp_dtype", "bf16"))
    scaler = torch.amp.GradScaler("cuda") if s.get("amp_dtype") == "fp16" else None
    b, n = s["batch"], s["seq"]
    steps = int(os.environ.get("MEASURE_STEPS", "3"))
    times = []
    prof = None
    for i in range(steps):
        if i == steps - 1 and os.environ.get("MEASURE_PROFILE"):
            # The last step under torch.profiler: CUDA kernel time by kind, the per-op split of a real step
            # that the cluster planner's roofline (core/cluster/step_ops.cpp) is to be checked against.
            prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
            prof.__enter__()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        ids = tokens(cfg, b, n)
        kw = {"input_ids": ids, "labels": ids}
        if recipe == "train_s2s":
            kw["labels"] = tokens(cfg, b, s["target"])
        elif recipe == "train_cls":
            kw["labels"] = torch.randint(0, 2, (b,), device="cuda")
        elif recipe == "train_speech":
            kw = {"input_features": torch.randn(b, cfg.num_mel_bins, n, device="cuda"), "labels": tokens(cfg, b, s["target"])}
        with torch.autocast("cuda", dtype=amp, enabled=s["autocast"]):
            loss = model(**kw).loss
        if scaler:
            scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
        else:
            loss.backward(); opt.step()
        opt.zero_grad(set_to_none=True)
        end.record()
        del loss, kw, ids
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1000)
    if prof is not None:
        prof.__exit__(None, None, None)
    torch.cuda.synchronize()
    after = torch.cuda.memory_allocated() - base
    out = dict(weights_allocated=weights, after_step_allocated=after, trainable_params=trainable,
               params=sum(p.numel() for p in model.parameters()),
               # Step times after the first (which allocates the optimizer states): wall time on the GPU.
               step_seconds=[round(t, 5) for t in times], tokens_per_step=b * n)
    if prof is not None:
        try:
            out["kernel_seconds_by_kind"] = kernel_kinds(prof)
        except Exception as e:  # the memory figures matter more than the profile
            out["kernel_seconds_by_kind"] = {"error": f"{type(e).__name__}: {e}"[:200]}
    del opt, model, params
    return out


def run_generate(case_id, model_id, recipe, s):
    base = fresh()
    model, cfg = build(model_id, "AutoModelForCausalLM", torch.bfloat16)
    model.eval()
    torch.cuda.synchronize()
    weights = torch.cuda.memory_allocated() - base
    gc_ = model.generation_config
    gc_.eos_token_id = None
    gc_.pad_token_id = 0
    ids = tokens(cfg, s["batch"], s["prompt"])
    with torch.inference_mode():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=s["new"], min_new_tokens=s["new"],
                             do_sample=False, use_cache=True, **({"cache_implementation": s["cache"]} if "cache" in s else {}))
    torch.cuda.synchronize()
    r = dict(weights_allocated=weights, generated=int(out.shape[1] - ids.shape[1]),
             params=sum(p.numel() for p in model.parameters()))
    del out, ids, model
    return r


def speed(argv):
    import argparse
    import measure_speed
    ap = argparse.ArgumentParser(prog="measure_gpu.py --speed", description="the cluster planner's mechanisms on one GPU")
    ap.add_argument("out", help="JSON file the figures are written to")
    ap.add_argument("--dry-run", action="store_true", help="print the plan; no torch, no GPU")
    ap.add_argument("--cpu", action="store_true", help="run every probe at toy sizes on the CPU")
    ap.add_argument("--window", type=float, default=10.0, help="seconds each GEMM is held for its sustained rate")
    ap.add_argument("--probes", default="gemm,attention,block,decode")
    ap.add_argument("--decode-model", default="llama-3.1-8b", help="a catalog id (models.json)")
    args = ap.parse_args(argv)
    probes = [p for p in args.probes.split(",") if p]
    unknown = [p for p in probes if p not in ("gemm", "attention", "block", "decode")]
    if unknown or not args.window > 0 or args.decode_model not in CATALOG:
        ap.error(f"unknown probe {unknown[0]}" if unknown else "--window must be above 0" if not args.window > 0
                 else f"--decode-model: no catalog model {args.decode_model!r}")
    if args.dry_run:
        plan = {"probes": probes, "window_s": args.window, "decode_model": args.decode_model, **measure_speed.plan()}
        with open(args.out, "w") as f:
            json.dump(plan, f, indent=1)
        print(json.dumps(plan)[:1500])
        return 0
    if torch is None:
        sys.exit("measure_gpu.py --speed: needs torch (and transformers for the block and decode probes)")
    if not args.cpu and not torch.cuda.is_available():
        sys.exit("measure_gpu.py --speed: no CUDA GPU; --cpu checks the probes on the CPU, --dry-run prints the plan")
    import transformers
    versions = {"torch": torch.__version__, "cuda": torch.version.cuda, "transformers": transformers.__version__,
                "python": platform.python_version(),
                "gpu": torch.cuda.get_device_name(0) if not args.cpu else "cpu"}
    measure_speed.run(args.out, CATALOG, versions, cpu=args.cpu, window_s=args.window, probes=probes,
                      decode_model=args.decode_model)
    return 0


def main():
    if "--speed" in sys.argv[1:]:
        sys.exit(speed([a for a in sys.argv[1:] if a != "--speed"]))
    if len(sys.argv) < 2 or torch is None:
        sys.exit(__doc__ if len(sys.argv) < 2 else "measure_gpu.py: needs torch, transformers and a CUDA GPU")
    out_path = sys.argv[1]
    wanted = set(sys.argv[2:])
    import transformers
    versions = {"torch": torch.__version__, "cuda": torch.version.cuda, "transformers": transformers.__version__,
                "python": platform.python_version(), "gpu": torch.cuda.get_device_name(0),
                "gpu_total_bytes": torch.cuda.get_device_properties(0).total_memory,
                "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")}
    try:
        import peft
        versions["peft"] = peft.__version__
    except ImportError:
        pass
    torch.manual_seed(0)
    results = {"versions": versions, "cases": []}
    for case_id, model_id, recipe, s in CASES:
        if wanted and case_id not in wanted:
            continue
        if time.time() > DEADLINE:
            results["cases"].append(dict(id=case_id, skipped="time budget"))
            continue
        t0 = time.time()
        rec = dict(id=case_id, model=model_id, recipe=recipe, settings=s)
        try:
            fn = run_generate if recipe == "generate" else run_train
            rec.update(fn(case_id, model_id, recipe, s))
            rec["max_allocated"] = torch.cuda.max_memory_allocated()
            rec["max_reserved"] = torch.cuda.max_memory_reserved()
        except torch.OutOfMemoryError as e:
            rec["error"] = "OOM: " + str(e)[:300]
        except Exception as e:  # a recipe that does not run is recorded, the others go on
            rec["error"] = type(e).__name__ + ": " + str(e)[:300]
        rec["seconds"] = round(time.time() - t0, 1)
        fresh()
        free, total = torch.cuda.mem_get_info()
        rec["device_used_minus_reserved"] = (total - free) - torch.cuda.memory_reserved()
        print(json.dumps({k: (round(v / GiB, 3) if isinstance(v, int) and v > 2**24 and k != "params" and k != "trainable_params" else v)
                          for k, v in rec.items() if k != "settings"}), flush=True)
        results["cases"].append(rec)
        with open(out_path, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
