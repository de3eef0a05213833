"""Stretch: the live-bytes curve of a real CPU training step (tiny 2-layer Llama, AdamW).

Live bytes = glibc mallinfo2() in-use bytes (uordblks + hblkhd, all arenas; PyTorch's CPU allocator is
posix_memalign), sampled after every aten op through a TorchDispatchMode (forward and backward ops both pass
through it).  The torch.profiler CPU memory events were tried first: they miss frees (10-36 MB still "live" after
zero_grad on this model), so they are not used here.

usage: /usr/bin/python3 tests/calibration/timeline.py [fp32|bf16] [eager|flash]
Runs two steps (the first creates AdamW's state lazily), profiles the second: forward, loss, backward, optimizer
step, zero_grad(set_to_none).  Prints the live bytes (relative to the start of the step, on top of weights +
optimizer state already allocated) at the end of each phase and the peak with the phase and op it falls in,
next to the closed forms: activations = L x block formula (formulas.py) + what the model adds outside the blocks.
"""
import contextlib
import ctypes
import sys

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from formulas import block_bytes  # noqa: E402
from model_state import TinyLlama, make_optimizer  # noqa: E402
from shapes import llama  # noqa: E402

PHASES = ("forward", "loss", "backward", "optimizer", "zero_grad")


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]


_libc = ctypes.CDLL("libc.so.6")
_libc.mallinfo2.restype = _MallInfo2


def heap_bytes():
    m = _libc.mallinfo2()
    return m.uordblks + m.hblkhd


class Sampler(TorchDispatchMode):
    """Records (phase, op, live bytes) after every aten op."""

    def __init__(self):
        super().__init__()
        self.phase, self.samples = "start", []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.samples.append((self.phase, str(func), heap_bytes()))
        return out

    @contextlib.contextmanager
    def mark(self, name):
        self.phase = name
        yield
        self.samples.append((name, "end of phase", heap_bytes()))


def step(model, opt, tokens, mark):
    with mark("forward"):
        logits = model(tokens[:, :-1])
    with mark("loss"):
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
    with mark("backward"):
        loss.backward()
    del logits, loss
    with mark("optimizer"):
        opt.step()
    with mark("zero_grad"):
        opt.zero_grad(set_to_none=True)


def main():
    dname = sys.argv[1] if len(sys.argv) > 1 else "fp32"
    impl = sys.argv[2] if len(sys.argv) > 2 else "eager"
    dtype, B = {"fp32": (torch.float32, 4), "bf16": (torch.bfloat16, 2)}[dname]
    torch.set_num_threads(1)
    cfg = llama(256, 688, 8, 2)
    cfg["vocab_size"] = 2048
    b, s, L, V, h = 2, 256, cfg["num_hidden_layers"], cfg["vocab_size"], cfg["hidden_size"]
    torch.manual_seed(0)
    model = TinyLlama(cfg).to(dtype).train()
    for layer in model.layers:
        layer.self_attn.impl = impl
    opt = make_optimizer("adamw", model.parameters())
    tokens = torch.randint(0, V, (b, s + 1))
    step(model, opt, tokens, lambda name: contextlib.nullcontext())  # AdamW creates its state here
    sampler = Sampler()
    base = heap_bytes()
    with sampler:
        step(model, opt, tokens, sampler.mark)
    peak, peak_at, ends = 0, None, {}
    for phase, op, used in sampler.samples:
        live = used - base
        if live > peak:
            peak, peak_at = live, (phase, op)
        ends[phase] = live
    P = sum(p.numel() for p in model.parameters())
    acts = L * sum(block_bytes(cfg, b, s, B, impl).values())
    # outside the blocks: embedding output (the first block's input; saved by block 0's norm only in fp32,
    # counted by the formula there), final RMSNorm (4bsh + 4bs + bshB), lm_head input (bshB), logits (bsVB),
    # fp32 logits copy for the loss (4bsV, bf16 only) and log_softmax output (4bsV)
    outside = (4 * b * s * h + 4 * b * s + b * s * h * B) + b * s * h * B + b * s * V * B \
        + (4 * b * s * V if B < 4 else 0) + 4 * b * s * V
    print(f"tiny llama h{h} I{cfg['intermediate_size']} a8 kv2 L{L} V{V}, b{b} s{s}, {dname} {impl}; "
          f"params {P} ({P * B} B); AdamW state {2 * P * B} B")
    print(f"closed form: block activations L x {acts // L} = {acts} B; outside the blocks {outside} B; "
          f"sum {acts + outside} B; gradients {P * B} B")
    for p in PHASES:
        if p in ends:
            print(f"  live after {p:<10s} {ends[p]:>12d} B")
    print(f"  peak {peak} B in phase '{peak_at[0]}' at op {peak_at[1]}")
    if "--curve" in sys.argv:
        n = len(sampler.samples)
        for i in range(0, n, max(1, n // 40)):
            phase, op, used = sampler.samples[i]
            print(f"    {i:>5d} {phase:<10s} {(used - base) / 2**20:>8.2f} MiB  {op}")


if __name__ == "__main__":
    main()
