"""The cluster planner's mechanisms, measured on one GPU (scripts/measure_gpu.py --speed).

Each probe measures one effect the planner models (docs/cluster.md, "What is measured and what is fitted"):

- gemm: Llama-shaped GEMMs, BF16 and FP8, each as a short burst after an idle gap (the MAMF regime) and held
  back to back for a window (the MSMF regime: the clock settles under the power limit); with NVML, the board
  power and SM clock of each;
- attention: FlashAttention through torch SDPA (flash backend), causal, forward and backward, by sequence length;
- block: one Llama 3.1 8B decoder block's training step (forward + backward, bf16) against the sum of its CUDA
  kernels (torch.profiler): the kernel gaps the planner fits per framework family, measured;
- decode: one Llama-style model's decode step at batch 1-64 with a static cache, eager and replayed as a CUDA
  graph: the launch floors of a decode step.

Everything runs in a few minutes on one H200 with PyTorch and transformers. --dry-run prints the plan (shapes,
FLOPs, what each probe records) without torch or a GPU; --cpu runs every probe at toy sizes on the CPU (needs
torch and transformers) to check the code paths."""
import json
import os
import statistics
import time

# Llama 3.1 8B (hidden 4096, 32 heads, 8 KV heads, intermediate 14336) and 70B (8192, 64, 8, 28672) at 16,384
# tokens per GPU: the GEMMs of a training step, and 70B's under TP 8.
GEMM_SHAPES = [
    ("8b-qkv", 16384, 6144, 4096), ("8b-o", 16384, 4096, 4096), ("8b-gate-up", 16384, 28672, 4096),
    ("8b-down", 16384, 4096, 14336), ("70b-tp8-gate-up", 16384, 7168, 8192), ("70b-tp8-down", 16384, 8192, 3584),
    ("decode-8b-b1", 1, 6144, 4096), ("decode-8b-b64", 64, 6144, 4096),
]
ATTENTION = [(2, 2048), (2, 8192), (1, 16384)]  # (batch, sequence) at 32 heads × 128
DECODE_BATCHES = [1, 2, 4, 8, 16, 32, 64]
BLOCK = dict(hidden=4096, heads=32, kv_heads=8, intermediate=14336, batch=2, seq=4096)


def plan():
    """What each probe will run, with the FLOPs of each shape (no torch needed)."""
    return {
        "gemm": [{"name": n, "m": m, "n": k_n, "k": k, "gflop": round(2 * m * k_n * k / 1e9, 3)} for n, m, k_n, k in GEMM_SHAPES],
        "attention": [{"batch": b, "seq": s, "heads": 32, "head_dim": 128,
                       "fwd_gflop": round(4 * b * s * s * 32 * 128 / 2 / 1e9, 1)} for b, s in ATTENTION],
        "block": BLOCK,
        "decode": {"batches": DECODE_BATCHES, "modes": ["eager", "cuda_graph"]},
    }


class Telemetry:
    """Board power (W) and SM clock (MHz) through NVML, where pynvml is installed."""

    def __init__(self):
        try:
            import pynvml
            pynvml.nvmlInit()
            self.m, self.h = pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception:
            self.m = None

    def read(self):
        if self.m is None:
            return {}
        return {"power_w": self.m.nvmlDeviceGetPowerUsage(self.h) / 1000,
                "sm_mhz": self.m.nvmlDeviceGetClockInfo(self.h, self.m.NVML_CLOCK_SM)}


def _timed(torch, fn, reps):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 1000 / reps


def gemm(torch, device, small, window_s, tele):
    rows = []
    fp8 = device == "cuda" and hasattr(torch, "_scaled_mm") and torch.cuda.get_device_capability() >= (8, 9)
    for name, m, n, k in GEMM_SHAPES:
        if small:
            m, n, k = max(1, m // 64), max(8, n // 64), max(8, k // 64)
        for dtype in ["bf16"] + (["fp8"] if fp8 else []):
            a = torch.randn(m, k, device=device, dtype=torch.bfloat16)
            b = torch.randn(n, k, device=device, dtype=torch.bfloat16)
            if dtype == "fp8":
                a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
                one = torch.ones((), device=device)
                fn = lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            else:
                fn = lambda: a @ b.t()
            flops = 2 * m * n * k
            if device != "cuda":
                t0 = time.perf_counter(); fn(); dt = time.perf_counter() - t0
                rows.append({"name": name, "dtype": dtype, "m": m, "n": n, "k": k, "cpu_seconds": dt})
                continue
            for _ in range(3):
                fn()
            # Bursts: an idle second, then a few calls timed one by one (the boost clock).
            bursts = []
            for _ in range(5):
                torch.cuda.synchronize(); time.sleep(1.0)
                bursts.append(_timed(torch, fn, 3))
            burst = flops / min(bursts) / 1e12
            # Sustained: back to back for the window; the rate over its second half.
            reps = max(1, int(0.05 / max(min(bursts), 1e-7)))
            t_end, times, samples = time.time() + window_s, [], []
            while time.time() < t_end:
                times.append(_timed(torch, fn, reps))
                samples.append(tele.read())
            tail = times[len(times) // 2:] or times
            sustained = flops / statistics.mean(tail) / 1e12
            late = [s for s in samples[len(samples) // 2:] if s]
            rows.append({"name": name, "dtype": dtype, "m": m, "n": n, "k": k, "burst_tflops": round(burst, 1),
                         "sustained_tflops": round(sustained, 1), "sustained_over_burst": round(sustained / burst, 4),
                         "power_w": round(statistics.mean(s["power_w"] for s in late), 1) if late else None,
                         "sm_mhz": round(statistics.mean(s["sm_mhz"] for s in late)) if late else None})
    return rows


def attention(torch, device, small):
    import torch.nn.functional as F
    rows = []
    for b, s in ATTENTION:
        h, d = (4, 32) if small else (32, 128)
        if small:
            s = max(64, s // 64)
        dtype = torch.bfloat16 if device == "cuda" else torch.float32
        q, k, v = (torch.randn(b, h, s, d, device=device, dtype=dtype, requires_grad=True) for _ in range(3))
        fwd_flops = 4 * b * s * s * h * d / 2  # causal
        ctx = torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION) if device == "cuda" else _null()
        with ctx:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            grad = torch.randn_like(out)
            if device == "cuda":
                fwd = _timed(torch, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), 10)
                bwd_total = _timed(torch, lambda: torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, is_causal=True),
                                                                      (q, k, v), grad), 10)
                rows.append({"batch": b, "seq": s, "fwd_tflops": round(fwd_flops / fwd / 1e12, 1),
                             "bwd_tflops": round(2.5 * fwd_flops / max(bwd_total - fwd, 1e-9) / 1e12, 1)})
            else:
                torch.autograd.grad(out, (q, k, v), grad)
                rows.append({"batch": b, "seq": s, "cpu": "ran"})
    return rows


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def block(torch, device, small):
    """One Llama decoder block: the training step's wall time against the sum of its CUDA kernels."""
    import transformers
    c = dict(BLOCK)
    if small:
        c.update(hidden=64, heads=4, kv_heads=2, intermediate=128, batch=1, seq=32)
    cfg = transformers.LlamaConfig(hidden_size=c["hidden"], num_attention_heads=c["heads"], num_key_value_heads=c["kv_heads"],
                                   intermediate_size=c["intermediate"], num_hidden_layers=1, vocab_size=128,
                                   attn_implementation="sdpa")
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    layer = transformers.models.llama.modeling_llama.LlamaDecoderLayer(cfg, 0).to(device=device, dtype=dtype)
    rope = transformers.models.llama.modeling_llama.LlamaRotaryEmbedding(cfg).to(device)
    x = torch.randn(c["batch"], c["seq"], c["hidden"], device=device, dtype=dtype, requires_grad=True)
    pos = torch.arange(c["seq"], device=device).unsqueeze(0)
    emb = rope(x, pos)

    def step():
        out = layer(x, position_embeddings=emb, position_ids=pos)
        out = out[0] if isinstance(out, tuple) else out
        out.float().pow(2).mean().backward()

    for _ in range(3):
        step()
    if device != "cuda":
        return {"config": c, "cpu": "ran"}
    wall = _timed(torch, step, 10)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            step()
        torch.cuda.synchronize()
    kernels = sum(e.device_time_total for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA) / 1e6 / 10
    return {"config": c, "step_seconds": round(wall, 6), "kernel_seconds": round(kernels, 6),
            "gap_fraction": round((wall - kernels) / kernels, 4)}


def decode(torch, device, small, model_id, catalog):
    """Decode steps of a Llama-style model with a static cache, eager and replayed as a CUDA graph."""
    import transformers
    cfg_dict = dict(catalog[model_id]["config"])
    if small:
        cfg_dict.update(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                        num_key_value_heads=2, vocab_size=256, head_dim=16)
    cfg = transformers.AutoConfig.for_model(**cfg_dict)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    with torch.device(device):
        model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=dtype).eval()
    rows = []
    for batch in (DECODE_BATCHES[:2] if small else DECODE_BATCHES):
        try:  # transformers 4.4x: batch, device and dtype given; 5.x: sized from the config at first use
            cache = transformers.StaticCache(config=cfg, max_batch_size=batch, max_cache_len=256, device=device, dtype=dtype)
        except TypeError:
            cache = transformers.StaticCache(config=cfg, max_cache_len=256)
        ids = torch.zeros(batch, 1, dtype=torch.long, device=device)
        pos = torch.tensor([128], device=device)
        run = lambda: model(input_ids=ids, cache_position=pos, past_key_values=cache, use_cache=True)
        with torch.inference_mode():
            for _ in range(3):
                run()
            if device != "cuda":
                rows.append({"batch": batch, "cpu": "ran"})
                continue
            eager = _timed(torch, run, 20)
            row = {"batch": batch, "eager_ms": round(eager * 1e3, 3)}
            try:
                graph = torch.cuda.CUDAGraph()
                stream = torch.cuda.Stream()
                stream.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(stream):
                    run()
                torch.cuda.current_stream().wait_stream(stream)
                with torch.cuda.graph(graph):
                    run()
                row["graph_ms"] = round(_timed(torch, graph.replay, 50) * 1e3, 3)
            except Exception as e:  # a model the graph cannot capture is recorded, not fatal
                row["graph_error"] = f"{type(e).__name__}: {e}"[:200]
            rows.append(row)
    return {"model": model_id, "rows": rows}


def run(out_path, catalog, versions, cpu=False, window_s=10.0, probes=("gemm", "attention", "block", "decode"),
        decode_model="llama-3.1-8b"):
    import torch
    device = "cpu" if cpu else "cuda"
    tele = Telemetry() if not cpu else Telemetry.__new__(Telemetry)
    if cpu:
        tele.m = None
    result = {"versions": versions, "plan": plan(), "probes": {}}
    for name in probes:
        t0 = time.time()
        try:
            if name == "gemm":
                result["probes"][name] = gemm(torch, device, cpu, window_s, tele)
            elif name == "attention":
                result["probes"][name] = attention(torch, device, cpu)
            elif name == "block":
                result["probes"][name] = block(torch, device, cpu)
            elif name == "decode":
                result["probes"][name] = decode(torch, device, cpu, decode_model, catalog)
        except Exception as e:  # one probe failing leaves the others
            result["probes"][name] = {"error": f"{type(e).__name__}: {e}"[:300]}
        result["probes"][name + "_seconds"] = round(time.time() - t0, 1)
        print(json.dumps({name: result["probes"][name]})[:2000], flush=True)
        with open(out_path, "w") as f:
            json.dump(result, f, indent=1)
    return result
