"""Phase-1 report: per-part saved bytes measured with autograd vs the closed forms in formulas.py.

usage: /usr/bin/python3 breakdown.py [--tensors] > breakdown.txt
Prints, per family / shape / dtype / attention, every part measured vs formula, the total, the bytes PyTorch 1.13
keeps only for MeanBackward (dropped from the totals, as PyTorch >= 2 does not keep them), and the bytes the CPU
memory profiler sees alive after the forward (a cross-check independent of the saved-tensor hooks).
"""
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from families import make_block  # noqa: E402
from formulas import block_bytes  # noqa: E402
from measure import live_bytes_delta, measure_block, measure_checkpointed, storage_key  # noqa: E402
from shapes import CASES  # noqa: E402

DTYPES = {"fp32": (torch.float32, 4), "bf16": (torch.bfloat16, 2)}


def hidden(cfg):
    return cfg.get("hidden_size") or cfg["n_embd"]


def run_case(cfg, b, s, dname, impl, dense=False, show=False):
    dtype, B = DTYPES[dname]
    torch.manual_seed(0)
    block, extras = make_block(cfg, impl, b, s, dtype, dense=dense)
    x = torch.randn(b, s, hidden(cfg), dtype=dtype, requires_grad=True)
    r = measure_block(block, x, extras)
    formula = block_bytes(cfg, b, s, B, impl, dense)
    # independent check with the memory profiler: everything allocated during the forward (input made inside)
    # and still alive after it, minus the output, = saved bytes + 1.13's mean-only input + 0-d scalars
    torch.manual_seed(0)
    y, live = live_bytes_delta(lambda: block(x * 1.0, **extras))
    live_saved = live - y.numel() * y.element_size()
    ck = {re_: measure_checkpointed(block, x, extras, re_) for re_ in (True, False)}
    return r, formula, live_saved, ck


# The decoder families with a closed form per part here (formulas.block_bytes); the encoder
# blocks (BERT, T5) are checked by run.py against the core directly.
DECODER_CASES = [c for c in CASES if c[0] in ("gpt2", "llama", "mixtral", "deepseek_v3")]


def variants_of(fam):
    """(attention implementation, dense layer) pairs each family runs: GPT-2 eager only; DeepSeek V3
    also its dense first layers."""
    variants = [("eager", False)] if fam == "gpt2" else [("eager", False), ("flash", False), ("sdpa", False)]
    if fam == "deepseek_v3":
        variants.append(("flash", True))
    return variants


def main():
    torch.set_num_threads(1)
    show = "--tensors" in sys.argv
    worst = 0.0
    for fam, label, cfg, b, s in DECODER_CASES:
        for impl, dense in variants_of(fam):
            for dname in DTYPES:
                r, f, live, ck = run_case(cfg, b, s, dname, impl, dense, show)
                scal = r["parts"].get("scalar constants (0-d)", 0)
                meas_total = r["total"] - scal
                f_total = sum(f.values())
                err = (f_total - meas_total) / meas_total
                worst = max(worst, abs(err))
                tag = f"{fam} [{label}] {dname} {impl}{' dense-layer' if dense else ''}"
                live_extra = live - r["total"] - r["mean_only"]
                live_ok = live_extra == 0
                ck_ok = all(c["kept"] - c["rng"] - c["input"] in (0, 8) for c in ck.values())
                print(f"## {tag}: measured {meas_total} formula {f_total} err {100 * err:+.3f}%"
                      f"  (0-d scalars {scal}, mean-only {r['mean_only']}, profiler live-after-forward {live}"
                      f" (saved + mean-only {live_extra:+d});"
                      f" checkpoint kept reentrant {ck[True]['kept']} / non-reentrant {ck[False]['kept']}"
                      f" = input {ck[True]['input']} + rng state {ck[True]['rng']}: {'yes' if ck_ok else 'NO'})")
                names = list(dict.fromkeys(list(r["parts"]) + list(f)))
                for n in names:
                    if n == "scalar constants (0-d)":
                        continue
                    m, g = r["parts"].get(n, 0), f.get(n, 0)
                    flag = "" if m == g else "   <-- MISMATCH"
                    print(f"   {n:45s} {m:>10d} {g:>10d}{flag}")
                if show:
                    for t in r["tensors"]:
                        print("      ", t["part"], t["ops"], t["shape"], t["dtype"], t["bytes"])
    print(f"worst total error {100 * worst:.4f}%")




def markdown():
    """Tables for calib-breakdown.md: totals for every case, and parts for the first shape of each family."""
    torch.set_num_threads(1)
    print("| family | shape | dtype | attention | measured (B) | formula (B) | error | checkpointed (reentrant / non) |")
    print("|---|---|---|---|---:|---:|---:|---|")
    detail = {}
    for fam, label, cfg, b, s in DECODER_CASES:
        for impl, dense in variants_of(fam):
            for dname in DTYPES:
                r, f, live, ck = run_case(cfg, b, s, dname, impl, dense)
                m = r["total"] - r["parts"].get("scalar constants (0-d)", 0)
                g = sum(f.values())
                kept = " / ".join(str(ck[k]["kept"] - ck[k]["rng"]) for k in (True, False))
                print(f"| {fam}{' (dense layer)' if dense else ''} | {label} | {dname} | {impl} | {m} | {g} |"
                      f" {100 * (g - m) / m:+.2f}% | {kept} (input {ck[True]['input']}) |")
                detail.setdefault((fam, impl, dense), (label, dname, r, f)) if dname == "bf16" else None
    for (fam, impl, dense), (label, dname, r, f) in detail.items():
        print(f"\n**{fam}{' dense layer' if dense else ''} {impl}, {label}, {dname}** (bytes per part)\n")
        print("| part | measured | formula | saved by (grad_fn) |\n|---|---:|---:|---|")
        ops = {}
        for t in r["tensors"]:
            ops.setdefault(t["part"], set()).update(t["ops"])
        for n in dict.fromkeys(list(r["parts"]) + list(f)):
            print(f"| {n} | {r['parts'].get(n, 0)} | {f.get(n, '-')} | {', '.join(sorted(ops.get(n, [])))} |")


if __name__ == "__main__":
    markdown() if "--markdown" in sys.argv else main()
