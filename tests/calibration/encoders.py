"""Encoder and encoder-decoder blocks for the activation calibration, in the op order of the transformers modeling
code (read, not copied):
  BERT  src/transformers/models/bert/modeling_bert.py: BertLayer = BertAttention (BertSelfAttention eager:
        matmul, / sqrt(d), + extended mask, softmax, dropout, matmul; BertSdpaSelfAttention: scaled_dot_product_attention
        on the (b, a, s, d) views, transpose, reshape), BertSelfOutput (dense, dropout, LayerNorm(x + input)),
        BertIntermediate (dense, gelu), BertOutput (dense, dropout, LayerNorm(x + input)).  Post-LN.
  T5    src/transformers/models/t5/modeling_t5.py: T5Block = T5LayerSelfAttention (T5LayerNorm, T5Attention: q/k/v
        without bias and without scaling, scores += position_bias, softmax(scores.float()).type_as(scores), dropout,
        matmul, o), residual + dropout; the decoder's T5LayerCrossAttention (EncDecAttention over the encoder's
        output); T5LayerFF (T5LayerNorm, DenseReluDense: wi, relu, dropout, wo; or T5DenseGatedActDense: gelu_new(wi_0)
        * wi_1, dropout, wo), residual + dropout.  Pre-norm.

The extras built once per forward outside the blocks (and so excluded from a block's count like the parameters):
BERT's extended attention mask; T5's position bias (computed in the first layer from the bias table, with the mask
folded in, then passed to every layer), the decoder's cross-attention position bias and the encoder's output.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

from blocks import FlashAttention, dropout, part


def gelu_new(x):
    """activations.NewGELUActivation (T5 v1.1 "gated-gelu" is dense_act_fn gelu_new), as Python ops."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def heads_view(t, heads):
    b, s, w = t.shape
    return t.view(b, s, heads, w // heads).permute(0, 2, 1, 3)


class BertLayer(nn.Module):
    def __init__(self, cfg, impl):
        super().__init__()
        h, self.inter = cfg["hidden_size"], cfg["intermediate_size"]
        self.heads, self.impl = cfg["num_attention_heads"], impl
        self.p_attn, self.p_hidden = cfg["attention_probs_dropout_prob"], cfg["hidden_dropout_prob"]
        self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
        self.attn_out = nn.Linear(h, h)
        self.ln1 = nn.LayerNorm(h, eps=cfg.get("layer_norm_eps", 1e-12))
        self.intermediate = nn.Linear(h, self.inter)
        self.output = nn.Linear(self.inter, h)
        self.ln2 = nn.LayerNorm(h, eps=cfg.get("layer_norm_eps", 1e-12))

    def forward(self, x, mask):
        b, s, h = x.shape
        with part("qkv in"):
            q = heads_view(self.query(x), self.heads)
            k = heads_view(self.key(x), self.heads)
            v = heads_view(self.value(x), self.heads)
        if self.impl == "eager":
            with part("attention scores"):
                w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(h // self.heads)
                w = w + mask
            with part("softmax"):
                w = F.softmax(w, dim=-1)
            with part("attn dropout mask"):
                w = dropout(w, self.p_attn, self.training)
            with part("attn out"):
                ctx = torch.matmul(w, v)
            ctx = ctx.permute(0, 2, 1, 3).contiguous().view(b, s, h)
        else:  # sdpa: the flash / memory-efficient kernels keep q, k, v, the output and the logsumexp (the stand-in
            # masks causally; what it keeps, and so the count, is the same without the mask)
            with part("sdpa saved (q, k, v, out, lse)"):
                ctx = FlashAttention.apply(q, k, v, (h // self.heads) ** -0.5, True)
            ctx = ctx.transpose(1, 2).reshape(b, s, h)
        with part("o_proj in"):
            a = self.attn_out(ctx)
        with part("resid dropout masks"):
            a = dropout(a, self.p_hidden, self.training)
        with part("norm1 (LayerNorm)"):
            a = self.ln1(a + x)
        with part("mlp in"):
            m = self.intermediate(a)
        with part("act (gelu)"):
            m = F.gelu(m)
        with part("down_proj in"):
            m = self.output(m)
        with part("resid dropout masks"):
            m = dropout(m, self.p_hidden, self.training)
        with part("norm2 (LayerNorm)"):
            return self.ln2(m + a)


class T5LayerNorm(nn.Module):
    """T5LayerNorm: variance of an fp32 copy, the original input times the fp32 rsqrt, cast to the weight dtype."""

    def __init__(self, h, eps):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(h)), eps

    def forward(self, x):
        variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        if self.weight.dtype in (torch.float16, torch.bfloat16):
            x = x.to(self.weight.dtype)
        return self.weight * x


class T5Attention(nn.Module):
    def __init__(self, cfg, tag):
        super().__init__()
        h, self.heads, d = cfg["d_model"], cfg["num_heads"], cfg["d_kv"]
        self.p, self.tag = cfg["dropout_rate"], tag
        self.q, self.k, self.v = (nn.Linear(h, self.heads * d, bias=False) for _ in range(3))
        self.o = nn.Linear(self.heads * d, h, bias=False)

    def forward(self, x, position_bias, kv=None):
        b, s, _ = x.shape
        src = x if kv is None else kv
        with part(f"{self.tag} q/k/v in"):
            q = heads_view(self.q(x), self.heads)
            k = heads_view(self.k(src), self.heads)
            v = heads_view(self.v(src), self.heads)
        with part(f"{self.tag} scores"):
            scores = torch.matmul(q, k.transpose(3, 2))
            scores += position_bias
        with part(f"{self.tag} softmax"):
            w = F.softmax(scores.float(), dim=-1).type_as(scores)
        with part(f"{self.tag} attn dropout mask"):
            w = dropout(w, self.p, self.training)
        with part(f"{self.tag} attn out"):
            out = torch.matmul(w, v)
        out = out.transpose(1, 2).contiguous().view(b, s, -1)
        with part(f"{self.tag} o in"):
            return self.o(out)


class T5Block(nn.Module):
    def __init__(self, cfg, decoder):
        super().__init__()
        h, eps = cfg["d_model"], cfg.get("layer_norm_epsilon", 1e-6)
        self.p, self.decoder = cfg["dropout_rate"], decoder
        self.gated = cfg.get("feed_forward_proj", "relu").startswith("gated-")
        self.norm_sa, self.self_attn = T5LayerNorm(h, eps), T5Attention(cfg, "self")
        if decoder:
            self.norm_ca, self.cross_attn = T5LayerNorm(h, eps), T5Attention(cfg, "cross")
        self.norm_ff = T5LayerNorm(h, eps)
        ff = cfg["d_ff"]
        self.wi = nn.Linear(h, ff, bias=False)
        if self.gated:
            self.wi_1 = nn.Linear(h, ff, bias=False)
        self.wo = nn.Linear(ff, h, bias=False)

    def forward(self, x, position_bias, encoder_hidden_states=None, encoder_decoder_position_bias=None):
        with part("norm (self)"):
            n = self.norm_sa(x)
        a = self.self_attn(n, position_bias)
        with part("resid dropout masks"):
            x = x + dropout(a, self.p, self.training)
        if self.decoder:
            with part("norm (cross)"):
                n = self.norm_ca(x)
            a = self.cross_attn(n, encoder_decoder_position_bias, kv=encoder_hidden_states)
            with part("resid dropout masks"):
                x = x + dropout(a, self.p, self.training)
        with part("norm (ff)"):
            n = self.norm_ff(x)
        with part("mlp in"):
            g = self.wi(n)
            u = self.wi_1(n) if self.gated else None
        with part("act"):
            m = gelu_new(g) * u if self.gated else F.relu(g)
        with part("mlp dropout mask"):
            m = dropout(m, self.p, self.training)
        with part("down_proj in"):
            m = self.wo(m)
        with part("resid dropout masks"):
            return x + dropout(m, self.p, self.training)


def make_encoder_block(cfg, impl, b, s, dtype):
    """-> (block in train mode and `dtype`, per-forward extras) for the bert and t5 families."""
    t = cfg["model_type"]
    if t == "bert":
        # BertModel.get_extended_attention_mask: (1 - mask) * finfo.min on (b, 1, 1, s); no padding here.
        return BertLayer(cfg, impl).to(dtype).train(), {"mask": torch.zeros(b, 1, 1, s, dtype=dtype)}
    h, a = cfg["d_model"], cfg["num_heads"]
    decoder = cfg["architectures"][0] != "T5EncoderModel"
    # T5Attention.compute_bias in the first layer: the bias table looked up by relative bucket, (1, a, s, s), plus
    # the extended mask -> (b, a, s, s); a leaf here, as the later layers receive it.
    bias = torch.randn(b, a, s, s, dtype=dtype)
    if decoder:
        bias = bias + torch.full((s, s), torch.finfo(dtype).min, dtype=dtype).triu(1)
    extras = {"position_bias": bias.requires_grad_()}
    if decoder:
        se = cfg["_encoder_seq"]
        extras["encoder_hidden_states"] = torch.randn(b, se, h, dtype=dtype, requires_grad=True)
        extras["encoder_decoder_position_bias"] = torch.zeros(b, a, s, se, dtype=dtype)
    return T5Block(cfg, decoder).to(dtype).train(), extras
