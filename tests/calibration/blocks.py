"""Reference transformer blocks for the activation calibration.

Each block follows the op sequence of the Hugging Face transformers modeling code (read, not copied):
  GPT-2        src/transformers/models/gpt2/modeling_gpt2.py  (GPT2Block, GPT2Attention._attn, GPT2MLP,
               Conv1D = addmm, activations.NewGELUActivation written out in Python ops)
  Llama        src/transformers/models/llama/modeling_llama.py (LlamaRMSNorm, apply_rotary_pos_emb,
               rotate_half, repeat_kv, eager_attention_forward, LlamaMLP)
  Mixtral      src/transformers/models/mixtral/modeling_mixtral.py (MixtralSparseMoeBlock: loop over experts,
               hidden_states[None, top_x], routing_weights[top_x, idx, None], index_add_)
  DeepSeek-V3  src/transformers/models/deepseek_v3/modeling_deepseek_v3.py (DeepseekV3Attention = MLA,
               DeepseekV3TopkRouter noaux_tc, DeepseekV3MoE.moe, shared experts, rope_interleave)

Every block takes the configuration as a dict with the real Hugging Face key names, so the harness can
write the same dict as config.json for the C++ CLI.  The code is split into named parts with `part(...)`:
the saved-tensor recorder (measure.py) files each saved tensor under the part active when it was first saved.

Dropout: nn.Dropout on CUDA dispatches to native_dropout, which saves a bool mask (1 byte per element); on CPU,
PyTorch (1.13 and 2.x) falls back to `input * noise`, which saves a noise tensor as wide as the input.  The
blocks call torch.native_dropout directly so that this CPU measurement saves what a GPU training run saves.
"""
import contextlib
import math

import torch
import torch.nn.functional as F
from torch import nn

CURRENT_PART = ["input"]


@contextlib.contextmanager
def part(name):
    """Saved tensors first packed inside this context are filed under `name`."""
    previous = CURRENT_PART[0]
    CURRENT_PART[0] = name
    try:
        yield
    finally:
        CURRENT_PART[0] = previous


def dropout(x, p, training):
    if not training or p == 0.0:
        return x
    return torch.native_dropout(x, p, True)[0]


# ---------------------------------------------------------------- shared pieces (Llama family)

class RMSNorm(nn.Module):
    """LlamaRMSNorm: upcast to fp32, pow(2).mean, rsqrt, multiply, cast back, times weight."""

    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x.to(dtype)


def rope_cos_sin(b, s, dim, theta, dtype):
    """LlamaRotaryEmbedding: computed once per model forward (outside the blocks), shape (b, s, dim)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    pos = torch.arange(s, dtype=torch.float32)[None, :].expand(b, s)
    freqs = pos[..., None] * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(q, k, cos, sin):
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def apply_rope_interleave(q, k, cos, sin):
    """DeepSeek-V3 apply_rotary_pos_emb_interleave (rope_interleave = true)."""
    def deinterleave(t):
        b, h, s, d = t.shape
        return t.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)
    return apply_rope(deinterleave(q), deinterleave(k), cos, sin)


def repeat_kv(x, n_rep):
    b, kvh, s, d = x.shape
    if n_rep == 1:
        return x
    return x[:, :, None, :, :].expand(b, kvh, n_rep, s, d).reshape(b, kvh * n_rep, s, d)


def causal_mask(b, s, dtype):
    """The 4D additive mask HF builds once per forward (outside the blocks)."""
    m = torch.full((s, s), torch.finfo(dtype).min, dtype=dtype).triu(1)
    return m[None, None].expand(b, 1, s, s)


def eager_attention(q, k, v, mask, scaling, n_rep):
    """eager_attention_forward: returns (b, s, heads, d_v); dropout is 0 (attention_dropout = 0.0)."""
    k = repeat_kv(k, n_rep)
    v = repeat_kv(v, n_rep)
    with part("attention scores"):
        w = torch.matmul(q, k.transpose(2, 3)) * scaling
        w = w + mask[:, :, :, : k.shape[-2]]
    with part("softmax"):
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
    with part("attn out"):
        out = torch.matmul(w, v)
        return out.transpose(1, 2).contiguous()


class FlashAttention(torch.autograd.Function):
    """Saves exactly what FlashAttention-2 (and SDPA's flash/efficient kernels) save for backward:
    q, k, v (k/v with the kv heads, no repeat), the output and the fp32 logsumexp (b, heads, s).
    Inputs q (b, a, s, d), k/v (b, kvh, s, d[v]); output (b, s, a, d_v) like flash_attn_func, or with
    heads_first (b, a, s, d_v) like torch's scaled_dot_product_attention (flash / memory-efficient kernels)."""

    @staticmethod
    def forward(ctx, q, k, v, scaling, heads_first=False):
        n_rep = q.shape[1] // k.shape[1]
        with torch.no_grad():
            s = q.shape[2]
            logits = torch.matmul(q.float(), repeat_kv(k, n_rep).float().transpose(2, 3)) * scaling
            logits = logits.masked_fill(torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
            lse = torch.logsumexp(logits, dim=-1)
            probs = torch.exp(logits - lse[..., None])
            out = torch.matmul(probs, repeat_kv(v, n_rep).float()).to(q.dtype)
            out = out.contiguous() if heads_first else out.transpose(1, 2).contiguous()
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.scaling, ctx.n_rep, ctx.heads_first = scaling, n_rep, heads_first
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, out, lse = ctx.saved_tensors
        n_rep, scaling, s = ctx.n_rep, ctx.scaling, q.shape[2]
        kf, vf = repeat_kv(k, n_rep).float(), repeat_kv(v, n_rep).float()
        logits = torch.matmul(q.float(), kf.transpose(2, 3)) * scaling
        logits = logits.masked_fill(torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
        p = torch.exp(logits - lse[..., None])
        o = out if ctx.heads_first else out.transpose(1, 2)
        do = (dout if ctx.heads_first else dout.transpose(1, 2)).float()
        dv = torch.matmul(p.transpose(2, 3), do)
        dp = torch.matmul(do, vf.transpose(2, 3))
        delta = (do * o.float()).sum(-1, keepdim=True)
        ds = p * (dp - delta) * scaling
        dq, dk = torch.matmul(ds, kf), torch.matmul(ds.transpose(2, 3), q.float())
        def fold(t):
            b, a, sq, d = t.shape
            return t.view(b, a // n_rep, n_rep, sq, d).sum(2)
        return dq.to(q.dtype), fold(dk).to(k.dtype), fold(dv).to(v.dtype), None, None


def attention(q, k, v, mask, scaling, impl):
    """-> (b, s, heads * d_v), as HF reshapes the attention output before o_proj."""
    b, s = q.shape[0], q.shape[2]
    if impl == "flash":
        with part("flash saved (q, k, v, out, lse)"):
            out = FlashAttention.apply(q, k, v, scaling)
    elif impl == "sdpa":
        # transformers integrations/sdpa_attention.py: repeat_kv unless use_gqa_in_sdpa (torch >= 2.5 and no
        # attention mask); SDPA returns (b, a, s, d), transposed and made contiguous for o_proj
        n_rep = q.shape[1] // k.shape[1]
        with part("sdpa saved (q, k, v, out, lse)"):
            out = FlashAttention.apply(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep), scaling, True)
        out = out.transpose(1, 2)
    else:
        out = eager_attention(q, k, v, mask, scaling, q.shape[1] // k.shape[1])
    return out.reshape(b, s, -1).contiguous()


class SwiGLU(nn.Module):
    """LlamaMLP / MixtralBlockSparseTop2MLP / DeepseekV3MLP: down(act(gate(x)) * up(x))."""

    def __init__(self, hidden, inter, tag="mlp"):
        super().__init__()
        self.tag = tag
        self.gate_proj = nn.Linear(hidden, inter, bias=False)
        self.up_proj = nn.Linear(hidden, inter, bias=False)
        self.down_proj = nn.Linear(inter, hidden, bias=False)

    def forward(self, x):
        with part(f"{self.tag} in (gate/up input)"):
            g, u = self.gate_proj(x), self.up_proj(x)
        with part(f"{self.tag} act (gate, up, silu)"):
            h = F.silu(g) * u
        with part(f"{self.tag} down_proj in"):
            return self.down_proj(h)
