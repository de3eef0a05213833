#include "serving.hpp"

#include <algorithm>

#include "units.hpp"

namespace vramcalc {
namespace {

std::string count(int64_t n) { return std::to_string(n); }

// Dimensions a config given only as num_parameters may lack.
int64_t hidden_of(const ModelConfig& c, const char* use) { return require_dimension(c.hidden, "hidden_size", use); }
int64_t layers_of(const ModelConfig& c, const char* use) { return require_dimension(c.layers, "num_hidden_layers", use); }
int64_t heads_of(const ModelConfig& c, const char* use) { return require_dimension(c.heads, "num_attention_heads", use); }
int64_t vocab_of(const ModelConfig& c, const char* use) { return require_dimension(c.vocab, "vocab_size", use); }

// The sizes activation formulas use, as doubles; `use` names the purpose in
// the error when a config given as num_parameters lacks a dimension.
struct ActivationShape {
    double s, b, h, a, V, t;
};
ActivationShape activation_shape(const Plan& p, const Layout& l, const char* use) {
    const ModelConfig& c = p.m.config;
    return {static_cast<double>(p.job.seq), static_cast<double>(p.job.batch),
            static_cast<double>(hidden_of(c, use)), static_cast<double>(heads_of(c, use)),
            static_cast<double>(vocab_of(c, use)), static_cast<double>(l.tp)};
}

// Widest MLP a token passes through (MoE: top-k experts + shared ones).
double widest_mlp(const ModelConfig& c) {
    if (!c.is_moe()) return static_cast<double>(c.intermediate);
    const double moe = static_cast<double>(c.moe_intermediate * (c.experts_per_token + c.shared_experts) +
                                           c.shared_expert_intermediate);
    return std::max(moe, c.dense_layers > 0 ? static_cast<double>(c.intermediate) : 0.0);
}

// Inference working set: layers run one at a time, so only one layer's
// temporaries are live during prefill: residual + normed input (2h) and the
// gated MLP's gate, up and product (3·I), plus the a·s² score matrix when
// attention is not fused, plus fp32 logits for the last token.
}  // namespace

double inference_activations(const Plan& p, const Layout& l, std::string* why) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const ActivationShape d = activation_shape(p, l, "the inference working set");
    const double s = d.s, b = d.b, h = d.h, a = d.a, V = d.V, t = d.t;
    const double I = c.intermediate > 0 ? widest_mlp(c) : 4 * h;
    const double bytes = p.compute.bits / 8;
    const double hidden_part = b * s * (2 * h + 3 * I / t) * bytes;
    const double scores = (job.attention != Attention::Eager) ? 0 : b * (a / t) * s * s * bytes;
    const double logits = 4 * b * V / t;
    if (why)
        *why = "one layer live during prefill: b·s·(2h + 3·I" + std::string(l.tp > 1 ? "/TP" : "") + ") × " +
               plain_number(bytes) + " bytes = " + gb_text(hidden_part) +
               ((job.attention != Attention::Eager) ? " (FlashAttention: no s² scores)"
                                    : " + attention scores b·a·s² = " + gb_text(scores)) +
               " + last-token fp32 logits = " + gb_text(logits) + "; I = " + plain_number(I);
    return hidden_part + scores + logits;
}

// KV cache: 2 (K and V) × layers × kv_heads × head_dim × seq × batch × bytes.
// GQA shrinks kv_heads; tensor parallelism splits heads (replicating them
// when TP > kv_heads). MLA (DeepSeek-V2 paper §2.1.2) caches one latent of
// kv_lora_rank + qk_rope_head_dim per token per layer, shared by all heads,
// hence replicated on every TP rank.
double kv_cache_term(const Plan& p, const Layout& l, std::string* why) {
    const Job& job = p.job;
    if (!p.kv) {
        if (why) *why = "none: training keeps no KV cache (keys and values are part of the activations)";
        return 0;
    }
    const ModelConfig& c = p.m.config;
    const char* use = "the KV cache";
    const NumberFormat& kv = *p.kv;
    const double bytes = kv.bits / 8, tokens = static_cast<double>(job.seq) * static_cast<double>(job.batch);
    const int64_t L = layers_of(c, use);
    const double layers_per_gpu = static_cast<double>(L) / static_cast<double>(l.pp);
    double per_token_layer, per_gpu_per_token_layer;
    std::string shape;
    if (c.is_mla()) {
        per_token_layer = static_cast<double>(c.kv_lora_rank + c.qk_rope_head_dim);
        per_gpu_per_token_layer = per_token_layer;
        shape = "MLA latent (kv_lora_rank " + count(c.kv_lora_rank) + " + rope " + count(c.qk_rope_head_dim) + ")";
    } else {
        const int64_t kv_heads = c.kv_heads > 0 ? c.kv_heads : heads_of(c, use);
        const int64_t head_dim = c.head_dim > 0 ? c.head_dim : hidden_of(c, use) / heads_of(c, use);
        per_token_layer = 2.0 * static_cast<double>(kv_heads * head_dim);
        per_gpu_per_token_layer = 2.0 * static_cast<double>((kv_heads + l.tp - 1) / l.tp * head_dim);
        shape = "2 × " + count(kv_heads) + " kv heads × " + count(head_dim);
    }
    const double full = static_cast<double>(L) * per_token_layer * tokens * bytes;
    const double per_gpu = layers_per_gpu * per_gpu_per_token_layer * tokens * bytes;
    if (why) {
        *why = count(L) + " layers × " + shape + " × " + count(job.seq) + " tokens × batch " + count(job.batch) +
               " × " + plain_number(bytes) + " bytes (" + kv.label + ") = " + gb_text(full) + " (" +
               printf_text("%.0f", static_cast<double>(L) * per_token_layer * bytes / 1024) + " KiB per token)";
        if (per_gpu != full) *why += ", " + gb_text(per_gpu) + " per GPU";
    }
    return per_gpu;
}

}  // namespace vramcalc
