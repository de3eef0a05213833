"""The four block families (GPT-2, Llama, Mixtral, DeepSeek-V3), built from blocks.py pieces.

make_block(cfg) -> (block, extras) where block(x, **extras) runs one decoder layer on x (b, s, h) and extras
are the per-forward tensors HF builds once outside the layers (rope cos/sin, the 4D causal mask).  Those are
shared by all layers and are excluded from the per-block count like the parameters.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

from blocks import (RMSNorm, SwiGLU, apply_rope, apply_rope_interleave, attention, causal_mask, dropout, part,
                    rope_cos_sin)


# ---------------------------------------------------------------- GPT-2

class Conv1D(nn.Module):
    """transformers.pytorch_utils.Conv1D: addmm(bias, x.view(-1, nx), weight)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        out = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return out.view(x.size()[:-1] + (self.weight.shape[1],))


def gelu_new(x):
    """activations.NewGELUActivation, as Python ops (each op saves what its backward needs)."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h = cfg["n_embd"]
        self.heads = cfg["n_head"]
        inner = cfg.get("n_inner") or 4 * h
        self.attn_pdrop, self.resid_pdrop = cfg["attn_pdrop"], cfg["resid_pdrop"]
        self.ln_1 = nn.LayerNorm(h, eps=cfg["layer_norm_epsilon"])
        self.ln_2 = nn.LayerNorm(h, eps=cfg["layer_norm_epsilon"])
        self.c_attn, self.c_proj = Conv1D(3 * h, h), Conv1D(h, h)
        self.c_fc, self.mlp_proj = Conv1D(inner, h), Conv1D(h, inner)
        n = cfg["n_positions"]
        self.register_buffer("bias", torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n))

    def split_heads(self, t):
        b, s, h = t.shape
        return t.view(b, s, self.heads, h // self.heads).permute(0, 2, 1, 3)

    def forward(self, x):
        b, s, h = x.shape
        with part("norm1 (ln_1)"):
            a = self.ln_1(x)
        with part("qkv in (c_attn)"):
            q, k, v = self.c_attn(a).split(h, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        with part("attention scores"):
            w = torch.matmul(q, k.transpose(-1, -2))
            w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
            mask_value = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype)
            w = torch.where(self.bias[:, :, s - s: s, :s], w.to(w.dtype), mask_value)
        with part("softmax"):
            w = F.softmax(w, dim=-1).type(v.dtype)
        with part("attn dropout mask"):
            w = dropout(w, self.attn_pdrop, self.training)
        with part("attn out"):
            o = torch.matmul(w, v)
        o = o.permute(0, 2, 1, 3).contiguous().view(b, s, h)
        with part("o_proj in (c_proj)"):
            o = self.c_proj(o)
        with part("resid dropout masks"):
            o = dropout(o, self.resid_pdrop, self.training)
        x = x + o
        with part("norm2 (ln_2)"):
            m = self.ln_2(x)
        with part("mlp in (c_fc)"):
            m = self.c_fc(m)
        with part("act (gelu_new)"):
            m = gelu_new(m)
        with part("down_proj in (c_proj)"):
            m = self.mlp_proj(m)
        with part("resid dropout masks"):
            m = dropout(m, self.resid_pdrop, self.training)
        return x + m


# ---------------------------------------------------------------- Llama / Mixtral attention

class LlamaAttention(nn.Module):
    def __init__(self, cfg, impl):
        super().__init__()
        h = cfg["hidden_size"]
        self.heads, self.kv_heads = cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.d = cfg.get("head_dim") or h // self.heads
        self.impl = impl
        self.q_proj = nn.Linear(h, self.heads * self.d, bias=False)
        self.k_proj = nn.Linear(h, self.kv_heads * self.d, bias=False)
        self.v_proj = nn.Linear(h, self.kv_heads * self.d, bias=False)
        self.o_proj = nn.Linear(self.heads * self.d, h, bias=False)

    def forward(self, x, cos, sin, mask):
        b, s, _ = x.shape
        with part("qkv in"):
            q = self.q_proj(x).view(b, s, -1, self.d).transpose(1, 2)
            k = self.k_proj(x).view(b, s, -1, self.d).transpose(1, 2)
            v = self.v_proj(x).view(b, s, -1, self.d).transpose(1, 2)
        q, k = apply_rope(q, k, cos, sin)
        o = attention(q, k, v, mask, self.d ** -0.5, self.impl)
        with part("o_proj in"):
            return self.o_proj(o)


class MixtralMoE(nn.Module):
    """MixtralSparseMoeBlock."""

    def __init__(self, cfg):
        super().__init__()
        h = cfg["hidden_size"]
        self.top_k, self.n_experts = cfg["num_experts_per_tok"], cfg["num_local_experts"]
        self.gate = nn.Linear(h, self.n_experts, bias=False)
        self.experts = nn.ModuleList(SwiGLU(h, cfg["intermediate_size"], "experts") for _ in range(self.n_experts))

    def forward(self, x):
        b, s, h = x.shape
        x = x.view(-1, h)
        with part("router"):
            logits = self.gate(x)
            weights = F.softmax(logits, dim=1, dtype=torch.float)
            weights, selected = torch.topk(weights, self.top_k, dim=-1)
            weights /= weights.sum(dim=-1, keepdim=True)
            weights = weights.to(x.dtype)
        out = torch.zeros((b * s, h), dtype=x.dtype)
        expert_mask = F.one_hot(selected, num_classes=self.n_experts).permute(2, 1, 0)
        for e in range(self.n_experts):
            idx, top_x = torch.where(expert_mask[e])
            if top_x.numel() == 0:
                continue
            with part("dispatch (routed token copies + indices)"):
                current = x[None, top_x].reshape(-1, h)
            y = self.experts[e](current)
            with part("combine (expert out * routing weight)"):
                y = y * weights[top_x, idx, None]
                out.index_add_(0, top_x, y.to(x.dtype))
        return out.reshape(b, s, h)


class PreNormBlock(nn.Module):
    """A pre-norm decoder layer in Hugging Face's op order: RMSNorm, attention, residual add,
    RMSNorm, MLP (dense or MoE), residual add."""

    def __init__(self, cfg, attn, mlp):
        super().__init__()
        h, eps = cfg["hidden_size"], cfg.get("rms_norm_eps", 1e-6)
        self.input_layernorm, self.post_attention_layernorm = RMSNorm(h, eps), RMSNorm(h, eps)
        self.self_attn, self.mlp = attn, mlp

    def forward(self, x, cos, sin, mask):
        with part("norm1"):
            a = self.input_layernorm(x)
        x = x + self.self_attn(a, cos, sin, mask)
        with part("norm2"):
            m = self.post_attention_layernorm(x)
        return x + self.mlp(m)


class LlamaBlock(PreNormBlock):
    """LlamaDecoderLayer (moe=False) or MixtralDecoderLayer (moe=True)."""

    def __init__(self, cfg, impl, moe=False):
        super().__init__(cfg, LlamaAttention(cfg, impl),
                         MixtralMoE(cfg) if moe else SwiGLU(cfg["hidden_size"], cfg["intermediate_size"]))


# ---------------------------------------------------------------- DeepSeek-V3

class MLA(nn.Module):
    """DeepseekV3Attention (multi-head latent attention), q_lora_rank set, rope_interleave = true."""

    def __init__(self, cfg, impl):
        super().__init__()
        h, eps = cfg["hidden_size"], cfg.get("rms_norm_eps", 1e-6)
        self.heads = cfg["num_attention_heads"]
        self.nope, self.rope, self.vd = cfg["qk_nope_head_dim"], cfg["qk_rope_head_dim"], cfg["v_head_dim"]
        self.qk = self.nope + self.rope
        self.kv_rank, self.impl = cfg["kv_lora_rank"], impl
        self.q_a_proj = nn.Linear(h, cfg["q_lora_rank"], bias=False)
        self.q_a_layernorm = RMSNorm(cfg["q_lora_rank"], eps)
        self.q_b_proj = nn.Linear(cfg["q_lora_rank"], self.heads * self.qk, bias=False)
        self.kv_a_proj_with_mqa = nn.Linear(h, self.kv_rank + self.rope, bias=False)
        self.kv_a_layernorm = RMSNorm(self.kv_rank, eps)
        self.kv_b_proj = nn.Linear(self.kv_rank, self.heads * (self.nope + self.vd), bias=False)
        self.o_proj = nn.Linear(self.heads * self.vd, h, bias=False)

    def forward(self, x, cos, sin, mask):
        b, s, _ = x.shape
        with part("q/kv down-proj in"):
            qa = self.q_a_proj(x)
            ckv = self.kv_a_proj_with_mqa(x)
        with part("q latent norm + q_b in"):
            q = self.q_b_proj(self.q_a_layernorm(qa)).view(b, s, -1, self.qk).transpose(1, 2)
        q_pass, q_rot = torch.split(q, [self.nope, self.rope], dim=-1)
        k_pass, k_rot = torch.split(ckv, [self.kv_rank, self.rope], dim=-1)
        with part("kv latent norm + kv_b in"):
            kv = self.kv_b_proj(self.kv_a_layernorm(k_pass)).view(b, s, -1, self.nope + self.vd).transpose(1, 2)
        k_pass, v = torch.split(kv, [self.nope, self.vd], dim=-1)
        k_rot = k_rot.view(b, 1, s, self.rope)
        q_rot, k_rot = apply_rope_interleave(q_rot, k_rot, cos, sin)
        k_rot = k_rot.expand(*k_pass.shape[:-1], -1)
        q = torch.cat((q_pass, q_rot), dim=-1)
        k = torch.cat((k_pass, k_rot), dim=-1)
        if self.impl == "flash" and self.qk != self.vd:
            v = F.pad(v, [0, self.qk - self.vd])  # HF pads v to the qk head dim for flash_attention_2
        o = attention(q, k, v, mask, self.qk ** -0.5, self.impl)
        if self.impl == "flash" and self.qk != self.vd:
            o = o.view(b, s, self.heads, self.qk)[..., : self.vd].reshape(b, s, -1)
        with part("o_proj in"):
            return self.o_proj(o.contiguous())


class DeepseekRouter(nn.Module):
    """DeepseekV3TopkRouter: sigmoid scores in fp32, noaux_tc group-limited top-k (no grad), gather, renorm."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.n = cfg["n_routed_experts"]
        self.weight = nn.Parameter(torch.randn(self.n, cfg["hidden_size"]) * 0.02)
        self.register_buffer("e_score_correction_bias", torch.zeros(self.n))

    @torch.no_grad()
    def topk_indices(self, scores):
        c = self.cfg
        groups, per = c["n_group"], self.n // c["n_group"]
        choice = scores.view(-1, self.n) + self.e_score_correction_bias.unsqueeze(0)
        group_scores = choice.view(-1, groups, per).topk(2, dim=-1)[0].sum(dim=-1)
        group_idx = torch.topk(group_scores, k=c["topk_group"], dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores).scatter_(1, group_idx, 1)
        score_mask = group_mask.unsqueeze(-1).expand(-1, groups, per).reshape(-1, self.n)
        choice = choice.masked_fill(~score_mask.bool(), 0.0)
        return torch.topk(choice, k=c["num_experts_per_tok"], dim=-1, sorted=False)[1]

    def forward(self, x):
        x = x.view(-1, self.cfg["hidden_size"])
        logits = F.linear(x.type(torch.float32), self.weight.type(torch.float32))
        scores = logits.sigmoid()
        idx = self.topk_indices(scores)
        w = scores.gather(1, idx)
        if self.cfg.get("norm_topk_prob", True):
            w /= w.sum(dim=-1, keepdim=True) + 1e-20
        return idx, w * self.cfg.get("routed_scaling_factor", 1.0)


class DeepseekMoE(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, ie = cfg["hidden_size"], cfg["moe_intermediate_size"]
        self.experts = nn.ModuleList(SwiGLU(h, ie, "experts") for _ in range(cfg["n_routed_experts"]))
        self.gate = DeepseekRouter(cfg)
        self.shared_experts = SwiGLU(h, ie * cfg["n_shared_experts"], "shared expert")

    def forward(self, x):
        b, s, h = x.shape
        with part("router"):
            idx, w = self.gate(x)
        flat = x.view(-1, h)
        out = torch.zeros_like(flat, dtype=w.dtype)
        mask = F.one_hot(idx, num_classes=len(self.experts)).permute(2, 0, 1)
        for e, expert in enumerate(self.experts):
            tokens, slots = torch.where(mask[e])
            if tokens.numel() == 0:
                continue
            with part("dispatch (routed token copies + indices)"):
                ew = w[tokens, slots]
                current = flat[tokens]
            y = expert(current)
            with part("combine (expert out * routing weight)"):
                out.index_add_(0, tokens, y * ew.unsqueeze(-1))
        out = out.type(x.dtype).view(b, s, h)
        return out + self.shared_experts(x)


class DeepseekBlock(PreNormBlock):
    """DeepseekV3DecoderLayer; moe=False is one of the first_k_dense_replace dense layers."""

    def __init__(self, cfg, impl, moe=True):
        super().__init__(cfg, MLA(cfg, impl),
                         DeepseekMoE(cfg) if moe else SwiGLU(cfg["hidden_size"], cfg["intermediate_size"]))


# ---------------------------------------------------------------- factory

def make_block(cfg, impl, b, s, dtype, dense=False):
    """-> (block in train mode and `dtype`, dict of per-forward extras)."""
    t = cfg["model_type"]
    if t in ("bert", "t5"):
        from encoders import make_encoder_block
        return make_encoder_block(cfg, impl, b, s, dtype)
    if t == "gpt2":
        return GPT2Block(cfg).to(dtype).train(), {}
    if t in ("llama", "mixtral"):
        block = LlamaBlock(cfg, impl, moe=(t == "mixtral"))
        d = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    elif t == "deepseek_v3":
        block = DeepseekBlock(cfg, impl, moe=not dense)
        d = cfg["qk_rope_head_dim"]
    else:
        raise ValueError(t)
    cos, sin = rope_cos_sin(b, s, d, cfg.get("rope_theta", 10000.0), dtype)
    return block.to(dtype).train(), {"cos": cos, "sin": sin, "mask": causal_mask(b, s, dtype)}
