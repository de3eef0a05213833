#include "params.hpp"

#include "errors.hpp"
#include "units.hpp"

namespace vramcalc {
namespace {

constexpr double kMaxParams = 1e15;

struct TensorList {
    std::vector<Tensor> tensors;

    void add(const char* module, TensorKind kind, int64_t in, int64_t out, int64_t copies) {
        add_routed(module, kind, in, out, copies, copies);
    }
    void add_routed(const char* module, TensorKind kind, int64_t in, int64_t out, int64_t copies,
                    int64_t active_copies) {
        if (copies > 0 && in > 0 && out > 0) tensors.push_back({module, kind, in, out, copies, active_copies});
    }
    void vector(const char* module, int64_t length, int64_t copies) {
        add(module, TensorKind::Vector, 1, length, copies);
    }
    // Gated (SwiGLU/GeGLU) MLP: gate and up project h -> width, down projects back.
    void gated_mlp(TensorKind kind, int64_t h, int64_t width, int64_t copies, int64_t active_copies) {
        add_routed("gate_proj", kind, h, width, copies, active_copies);
        add_routed("up_proj", kind, h, width, copies, active_copies);
        add_routed("down_proj", kind, width, h, copies, active_copies);
    }
};

void llama_attention(const ModelConfig& c, TensorList& t) {
    const int64_t L = c.layers, h = c.hidden, q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim;
    t.add("q_proj", TensorKind::Attention, h, q, L);
    t.add("k_proj", TensorKind::Attention, h, kv, L);
    t.add("v_proj", TensorKind::Attention, h, kv, L);
    t.add("o_proj", TensorKind::Attention, q, h, L);
    if (c.qkv_bias) {
        t.vector("q_proj.bias", q, L);
        t.vector("k_proj.bias", kv, L);
        t.vector("v_proj.bias", kv, L);
    }
    if (c.qk_norm) {
        t.vector("q_norm", c.head_dim, L);
        t.vector("k_norm", c.head_dim, L);
    }
}

// Multi-head latent attention, DeepSeek-V2 paper (arXiv:2405.04434) §2.1:
// queries and keys/values go through low-rank latents; RoPE uses a separate
// shared key of qk_rope_head_dim.
void mla_attention(const ModelConfig& c, TensorList& t) {
    const int64_t L = c.layers, h = c.hidden, qk_dim = c.qk_nope_head_dim + c.qk_rope_head_dim;
    if (c.q_lora_rank > 0) {
        t.add("q_a_proj", TensorKind::Attention, h, c.q_lora_rank, L);
        t.vector("q_a_layernorm", c.q_lora_rank, L);
        t.add("q_b_proj", TensorKind::Attention, c.q_lora_rank, c.heads * qk_dim, L);
    } else {
        t.add("q_proj", TensorKind::Attention, h, c.heads * qk_dim, L);
    }
    t.add("kv_a_proj_with_mqa", TensorKind::Attention, h, c.kv_lora_rank + c.qk_rope_head_dim, L);
    t.vector("kv_a_layernorm", c.kv_lora_rank, L);
    t.add("kv_b_proj", TensorKind::Attention, c.kv_lora_rank, c.heads * (c.qk_nope_head_dim + c.v_head_dim), L);
    t.add("o_proj", TensorKind::Attention, c.heads * c.v_head_dim, h, L);
}

void moe_mlp(const ModelConfig& c, TensorList& t) {
    const int64_t h = c.hidden, moe_L = c.moe_layers();
    t.gated_mlp(TensorKind::Mlp, h, c.intermediate, c.dense_layers, c.dense_layers);
    t.add("gate", TensorKind::Router, h, c.experts, moe_L);
    if (c.model_type == "deepseek_v3") t.vector("gate.e_score_correction_bias", c.experts, moe_L);
    t.gated_mlp(TensorKind::RoutedExpert, h, c.moe_intermediate, moe_L * c.experts, moe_L * c.experts_per_token);
    // DeepSeek: n_shared_experts always-on experts of the routed width.
    t.gated_mlp(TensorKind::Mlp, h, c.moe_intermediate * c.shared_experts, moe_L, moe_L);
    // Qwen2-MoE: one wide shared expert with a scalar sigmoid gate.
    if (c.shared_expert_intermediate > 0) {
        t.gated_mlp(TensorKind::Mlp, h, c.shared_expert_intermediate, moe_L, moe_L);
        t.add("shared_expert_gate", TensorKind::Router, h, 1, moe_L);
    }
}

void llama_like(const ModelConfig& c, TensorList& t) {
    const int64_t L = c.layers, h = c.hidden;
    t.add("embed_tokens", TensorKind::Embedding, c.vocab, h, 1);
    if (c.family == Family::DeepSeek)
        mla_attention(c, t);
    else
        llama_attention(c, t);
    if (c.is_moe())
        moe_mlp(c, t);
    else
        t.gated_mlp(TensorKind::Mlp, h, c.intermediate, L, L);
    t.vector("layernorm", h, L * c.norms_per_layer);
    t.vector("norm", h, 1);
    if (!c.tied_embeddings) t.add("lm_head", TensorKind::Head, h, c.vocab, 1);
}

// GPT-2 and GPT-NeoX share one layout: fused QKV, a plain (non-gated) GELU
// MLP, LayerNorms with weight and bias, a bias on every projection. Only the
// module names differ (they matter for LoRA targets), and GPT-2 adds learned
// positions and ties its head by default.
struct PlainLayout {
    const char *embed, *qkv, *attn_out, *fc_in, *fc_out, *norm, *final_norm, *head;
    // bias vectors, named after their projection
    const char *qkv_bias, *attn_out_bias, *fc_in_bias, *fc_out_bias;
};

const PlainLayout kGpt2Names = {"wte", "c_attn", "c_proj", "c_fc", "c_proj", "ln", "ln_f", "lm_head",
                                "c_attn.bias", "c_proj.bias", "c_fc.bias", "mlp.c_proj.bias"};
const PlainLayout kNeoXNames = {"embed_in", "query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h",
                                "layer_norm", "final_layer_norm", "embed_out", "query_key_value.bias",
                                "dense.bias", "dense_h_to_4h.bias", "dense_4h_to_h.bias"};

void plain_transformer(const ModelConfig& c, const PlainLayout& n, TensorList& t) {
    const int64_t L = c.layers, h = c.hidden, I = c.intermediate;
    t.add(n.embed, TensorKind::Embedding, c.vocab, h, 1);
    if (c.family == Family::Gpt2) t.add("wpe", TensorKind::Embedding, c.max_positions, h, 1);
    t.add(n.qkv, TensorKind::Attention, h, 3 * h, L);
    t.vector(n.qkv_bias, 3 * h, L);
    t.add(n.attn_out, TensorKind::Attention, h, h, L);
    t.vector(n.attn_out_bias, h, L);
    t.add(n.fc_in, TensorKind::Mlp, h, I, L);
    t.vector(n.fc_in_bias, I, L);
    t.add(n.fc_out, TensorKind::Mlp, I, h, L);
    t.vector(n.fc_out_bias, h, L);
    t.vector(n.norm, 2 * h, 2 * L);
    t.vector(n.final_norm, 2 * h, 1);
    if (!c.tied_embeddings) t.add(n.head, TensorKind::Head, h, c.vocab, 1);
}

}  // namespace

std::vector<Tensor> list_tensors(const ModelConfig& config) {
    TensorList t;
    switch (config.family) {
        case Family::LlamaLike:
        case Family::DeepSeek: llama_like(config, t); break;
        case Family::Gpt2: plain_transformer(config, kGpt2Names, t); break;
        case Family::GptNeoX: plain_transformer(config, kNeoXNames, t); break;
        case Family::Explicit: break;
    }
    return t.tensors;
}

ParamCounts count_params(const ModelConfig& config) {
    ParamCounts counts;
    if (config.family == Family::Explicit) {
        counts.total = counts.active = static_cast<double>(config.explicit_params);
        return counts;
    }
    for (const auto& t : list_tensors(config)) {
        const double p = t.params();
        counts.total += p;
        counts.active += p * static_cast<double>(t.active_copies) / static_cast<double>(t.copies);
        if (t.kind == TensorKind::Embedding || t.kind == TensorKind::Head) counts.embeddings += p;
    }
    if (counts.total > kMaxParams)
        throw InputError("config", "describes an absurd model (" + printf_text("%.3g", counts.total) +
                                       " parameters > 1e15); check hidden_size, layers and expert counts");
    return counts;
}

}  // namespace vramcalc
