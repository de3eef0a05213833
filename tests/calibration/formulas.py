"""Closed-form bytes autograd saves per block part, derived from the measurements (see calib-breakdown.md).

Symbols: b batch, s sequence, h hidden, a heads, kv kv-heads, d head_dim, I intermediate, I_e moe intermediate,
E experts, K top-k, T = b*s*K routed token slots, B bytes per element of the compute dtype (4 fp32, 2 bf16).
`up` = 1 when B < 4 (a low-precision model upcasts: fp32 softmax/router copies are extra tensors), else 0.
Every function returns {part name: bytes} with the part names the reference blocks use.
"""


def _rmsnorm(rows, width, B):
    """LlamaRMSNorm: fp32 copy of the input (pow and mul save it; in fp32 it is the input itself), rsqrt (fp32,
    one per row), the normalized tensor cast back (saved by `weight *`).  The mean's input is not counted (>= 2)."""
    return 4 * rows * width + 4 * rows + rows * width * B


def _swiglu(rows, h, inter, B, tag, with_input=True):
    """gate/up input (rows*h, unless already saved by someone else), silu input (gate out), up out, silu out
    (the mul saves both factors), down_proj input."""
    return {f"{tag} in (gate/up input)": rows * h * B if with_input else 0,
            f"{tag} act (gate, up, silu)": 3 * rows * inter * B,
            f"{tag} down_proj in": rows * inter * B}


def gpt2(cfg, b, s, B):
    h, a = cfg["n_embd"], cfg["n_head"]
    inner = cfg.get("n_inner") or 4 * h
    bs, bas2 = b * s, b * a * s * s
    drop_attn = 1 if cfg.get("attn_pdrop", 0) > 0 else 0
    drop_res = 1 if cfg.get("resid_pdrop", 0) > 0 else 0
    return {
        "norm1 (ln_1)": bs * h * B + 2 * bs * B,          # input + mean + rstd (CUDA keeps mean/rstd in fp32)
        "qkv in (c_attn)": bs * h * B,                    # addmm saves ln_1 output
        # matmul folds the permuted q, k, v views of the c_attn output into contiguous copies (b > 1); with b = 1
        # the fold is a view and the matmuls keep the c_attn output itself: same 3*b*s*h*B, filed here
        "attention scores": (2 if b > 1 else 3) * bs * h * B,
        "softmax": bas2 * B,                              # softmax output
        "attn dropout mask": drop_attn * bas2,            # bool mask, 1 byte per element
        "attn out": drop_attn * bas2 * B + (bs * h * B if b > 1 else 0),  # dropped probs (if p > 0) + v copy
        "o_proj in (c_proj)": bs * h * B,
        "resid dropout masks": drop_res * 2 * bs * h,     # two bool masks (attn and mlp residual)
        "norm2 (ln_2)": bs * h * B + 2 * bs * B,
        "mlp in (c_fc)": bs * h * B,
        "act (gelu_new)": 4 * bs * inner * B,             # x (pow), tanh out, 0.5*x, 1+tanh
        "down_proj in (c_proj)": bs * inner * B,
    }


def _llama_attention(b, s, h, a, kv, d, B, impl):
    bs, up = b * s, 1 if B < 4 else 0
    p = {"norm1": _rmsnorm(bs, h, B), "qkv in": bs * h * B}
    if impl == "flash":
        # q (a heads), k and v (kv heads, no repeat), output (= o_proj input), fp32 logsumexp
        p["flash saved (q, k, v, out, lse)"] = 2 * bs * a * d * B + 2 * bs * kv * d * B + 4 * b * a * s
    elif impl == "sdpa":
        # q, repeat_kv'd k and v (a heads), output (b, a, s, d), logsumexp; o_proj gets a transposed copy.
        # With one kv head (MQA) repeat_kv's reshape of the expand is a stride-0 view: k, v stay kv-wide.
        kvw = kv if kv == 1 else a
        p["sdpa saved (q, k, v, out, lse)"] = 2 * bs * a * d * B + 2 * bs * kvw * d * B + 4 * b * a * s
        p["o_proj in"] = bs * a * d * B
    else:
        p["attention scores"] = 2 * bs * a * d * B       # rope'd q, repeat_kv'd k (a heads)
        p["softmax"] = 4 * b * a * s * s                  # softmax in fp32
        p["attn out"] = up * b * a * s * s * B + bs * a * d * B  # probs cast back (bf16 only) + repeated v
        p["o_proj in"] = bs * a * d * B
    return p


def llama(cfg, b, s, B, impl):
    h, a = cfg["hidden_size"], cfg["num_attention_heads"]
    kv, d = cfg.get("num_key_value_heads", a), cfg.get("head_dim") or h // a
    p = _llama_attention(b, s, h, a, kv, d, B, impl)
    p["norm2"] = _rmsnorm(b * s, h, B)
    p.update(_swiglu(b * s, h, cfg["intermediate_size"], B, "mlp"))
    return p


def mixtral(cfg, b, s, B, impl):
    h, a = cfg["hidden_size"], cfg["num_attention_heads"]
    kv, d = cfg.get("num_key_value_heads", a), cfg.get("head_dim") or h // a
    E, K, ie = cfg["num_local_experts"], cfg["num_experts_per_tok"], cfg["intermediate_size"]
    bs, T = b * s, b * s * K
    p = _llama_attention(b, s, h, a, kv, d, B, impl)
    p["norm2"] = _rmsnorm(bs, h, B)
    # gate input, fp32 softmax, topk indices (int64), topk values and their sum (in-place renormalize)
    p["router"] = bs * h * B + 4 * bs * E + 8 * T + 4 * T + 4 * bs
    p["dispatch (routed token copies + indices)"] = 16 * T   # torch.where -> (idx, top_x) int64 per slot
    p.update(_swiglu(T, h, ie, B, "experts"))                   # routed copies hidden_states[top_x]
    p["combine (expert out * routing weight)"] = T * h * B + T * B + T * h * B  # y, weight, index_add source
    return p


def deepseek_v3(cfg, b, s, B, impl, dense=False):
    h, a = cfg["hidden_size"], cfg["num_attention_heads"]
    rq, rkv = cfg["q_lora_rank"], cfg["kv_lora_rank"]
    nope, rope, vd = cfg["qk_nope_head_dim"], cfg["qk_rope_head_dim"], cfg["v_head_dim"]
    qk, bs, up = nope + rope, b * s, 1 if B < 4 else 0
    p = {"norm1": _rmsnorm(bs, h, B),
         "q/kv down-proj in": bs * h * B,
         "q latent norm + q_b in": _rmsnorm(bs, rq, B) + bs * rq * B,
         # in fp32 the norm's input is a split view of kv_a output: the whole (rkv + rope) row stays alive
         "kv latent norm + kv_b in": _rmsnorm(bs, rkv, B) + (1 - up) * 4 * bs * rope + bs * rkv * B}
    if impl == "flash":
        v = bs * a * qk * B if vd < qk else bs * a * (nope + vd) * B   # padded copy, or the kv_b output
        out = bs * a * max(qk, vd) * B
        p["flash saved (q, k, v, out, lse)"] = 2 * bs * a * qk * B + v + out + 4 * b * a * s
        if vd < qk:
            p["o_proj in"] = bs * a * vd * B                  # the sliced output, made contiguous
    elif impl == "sdpa":
        # no padding for SDPA: v stays a split view of the kv_b output (whole storage kept); output (b, a, s, v)
        p["sdpa saved (q, k, v, out, lse)"] = 2 * bs * a * qk * B + bs * a * (nope + vd) * B \
            + bs * a * vd * B + 4 * b * a * s
        p["o_proj in"] = bs * a * vd * B
    else:
        p["attention scores"] = 2 * bs * a * qk * B          # cat(q_pass, q_rot), cat(k_pass, k_rot)
        p["softmax"] = 4 * b * a * s * s
        # v is a split view of the kv_b output: matmul copies it (b > 1), or with b = 1 folds it as a view and
        # keeps the whole kv_b output (b*s*a*(nope + vd)) alive
        v = bs * a * vd * B if b > 1 else bs * a * (nope + vd) * B
        p["attn out"] = up * b * a * s * s * B + v  # probs cast back (bf16 only) + v
        p["o_proj in"] = bs * a * vd * B
    p["norm2"] = _rmsnorm(bs, h, B)
    if dense:
        p.update(_swiglu(bs, h, cfg["intermediate_size"], B, "mlp"))
        return p
    E, K, ie = cfg["n_routed_experts"], cfg["num_experts_per_tok"], cfg["moe_intermediate_size"]
    T = bs * K
    # router: F.linear on fp32 copies of the input and (bf16 only) of the router weight; sigmoid scores,
    # gather indices, renormalize (in-place div saves numerator and denominator)
    p["router"] = 4 * bs * h + up * 4 * E * h + 4 * bs * E + 8 * T + 4 * T + 4 * bs
    p["dispatch (routed token copies + indices)"] = 16 * T
    p.update(_swiglu(T, h, ie, B, "experts"))
    # y (dtype), routing weight (fp32), fp32 product kept by index_add_ (final_hidden_states is fp32)
    p["combine (expert out * routing weight)"] = T * h * B + 4 * T + 4 * T * h
    p.update(_swiglu(bs, h, ie * cfg["n_shared_experts"], B, "shared expert", with_input=bool(up)))
    return p


def block_bytes(cfg, b, s, B, impl, dense=False):
    t = cfg["model_type"]
    if t == "gpt2":
        return gpt2(cfg, b, s, B)
    if t == "llama":
        return llama(cfg, b, s, B, impl)
    if t == "mixtral":
        return mixtral(cfg, b, s, B, impl)
    return deepseek_v3(cfg, b, s, B, impl, dense)
