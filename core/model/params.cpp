#include "model/params.hpp"

#include "text/errors.hpp"
#include "model/names.hpp"
#include "model/params_parts.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

constexpr double kMaxParams = 1e15;

// q, k, v, o of one attention layer, `L` copies. Options from the config:
// biases (qkv_bias / attn_output_bias), Qwen3-Next's output gate (q_proj
// emits a sigmoid gate as wide as the queries), per-head or whole-projection
// q/k norms, and gpt-oss's learned sink logit per head.
void standard_attention(const ModelConfig& c, int64_t L, TensorList& t) {
    const ModuleNames& n = names(c);
    const int64_t h = c.hidden, q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim;
    if (c.fused_qkv) {  // one q‖k‖v projection (BLOOM, MPT, Baichuan W_pack, InternLM2 wqkv, ChatGLM, Qwen c_attn)
        t.add(n.qkv, TensorKind::Attention, h, q + 2 * kv, L);
        if (c.qkv_bias) t.vector("qkv.bias", q + 2 * kv, L);
    } else {
        t.add(n.q, TensorKind::Attention, h, c.attn_output_gate ? 2 * q : q, L);
        t.add(n.k, TensorKind::Attention, h, kv, L);
        t.add(n.v, TensorKind::Attention, h, kv, L);
        if (c.qkv_bias) {
            t.vector("q_proj.bias", q, L);
            t.vector("k_proj.bias", kv, L);
            t.vector("v_proj.bias", kv, L);
        }
    }
    t.add(n.o, TensorKind::Attention, q, h, L);
    if (c.attn_output_bias) t.vector("o_proj.bias", h, L);
    if (c.qk_norm) {
        // Per-head RMSNorm weights (Qwen3, Gemma 3); OLMo 2 normalises the whole
        // projection; Command R+ keeps one weight row per head.
        const int64_t qn = c.qk_norm_full || c.qk_norm_per_head_matrix ? q : c.head_dim;
        const int64_t kn = c.qk_norm_full || c.qk_norm_per_head_matrix ? kv : c.head_dim;
        t.vector("q_norm", qn, L);
        t.vector("k_norm", kn, L);
    }
    if (c.attention_sinks) t.vector("sinks", c.heads, L);
}

// Multi-head latent attention, DeepSeek-V2 paper (arXiv:2405.04434) §2.1:
// queries and keys/values go through low-rank latents; RoPE uses a separate
// shared key of qk_rope_head_dim.
void mla_attention(const ModelConfig& c, int64_t L, TensorList& t) {
    const int64_t h = c.hidden, qk_dim = c.qk_nope_head_dim + c.qk_rope_head_dim;
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
    if (c.indexer_heads > 0) {
        // DSA lightning indexer (DeepSeek-V3.2 inference/model.py class Indexer): wq_b from the query
        // latent, one shared key head wk, k_norm LayerNorm (weight + bias), a weight per head.
        t.add("indexer.wq_b", TensorKind::Attention, c.q_lora_rank > 0 ? c.q_lora_rank : h,
              c.indexer_heads * c.indexer_head_dim, L);
        t.add("indexer.wk", TensorKind::Attention, h, c.indexer_head_dim, L);
        t.vector("indexer.k_norm", 2 * c.indexer_head_dim, L);
        t.add("indexer.weights_proj", TensorKind::Attention, h, c.indexer_heads, L);
    }
}

int64_t count_moe_layers(const ModelConfig& c) {
    int64_t n = 0;
    for (const auto& k : c.layer_kinds) n += k.moe ? 1 : 0;
    return n;
}

void moe_mlp(const ModelConfig& c, int64_t moe_L, TensorList& t) {
    const int64_t h = c.hidden, E = c.experts, k = c.experts_per_token;
    t.add("gate", TensorKind::Router, h, E, moe_L);
    if (c.expert_bias) t.vector("router.bias", E, moe_L);
    if (c.router_bias) t.vector("gate.e_score_correction_bias", E, moe_L);
    t.gated_mlp(TensorKind::RoutedExpert, h, c.moe_intermediate, moe_L * E, moe_L * k);
    if (c.expert_bias) {  // gpt-oss: gate_up_proj_bias (2·I) and down_proj_bias (h) per expert
        t.add_routed("experts.gate_up_proj_bias", TensorKind::Vector, 1, 2 * c.moe_intermediate, moe_L * E, moe_L * k);
        t.add_routed("experts.down_proj_bias", TensorKind::Vector, 1, h, moe_L * E, moe_L * k);
    }
    // DeepSeek / GLM-4.5 / Kimi: n_shared_experts always-on experts of the routed width.
    t.gated_mlp(TensorKind::Mlp, h, c.moe_intermediate * c.shared_experts, moe_L, moe_L);
    // Qwen2-MoE / Qwen3-Next / Llama 4: one wide shared expert (Qwen adds a scalar sigmoid gate).
    if (c.shared_expert_intermediate > 0) {
        t.gated_mlp(TensorKind::Mlp, h, c.shared_expert_intermediate, moe_L, moe_L);
        if (c.shared_expert_gate) t.add("shared_expert_gate", TensorKind::Router, h, 1, moe_L);
    }
}

// Decoder-only stack with RMSNorm/LayerNorm, gated MLP (or MoE), and a token
// mixer per layer: attention (standard or MLA) or a recurrent mixer.
void decoder(const ModelConfig& c, TensorList& t) {
    const ModuleNames& n = names(c);
    const int64_t L = c.layers, h = c.hidden;
    const int64_t attn_L = c.attention_layers(), rec_L = c.recurrent_layers();
    const int64_t norm_len = c.norm_bias ? 2 * h : h;  // LayerNorm with bias: weight + bias
    // OPT-350m: a narrower embedding projected in and out (project_in/out, no bias).
    const int64_t e = c.embed_proj > 0 ? c.embed_proj : h;
    t.add(n.embed, TensorKind::Embedding, c.vocab + c.extra_embeddings, e, 1);
    if (c.position_rows > 0) t.add("embed_positions", TensorKind::Embedding, c.position_rows, h, 1);
    if (c.embed_proj > 0) {
        t.add("project_in", TensorKind::Mlp, e, h, 1);
        t.add("project_out", TensorKind::Mlp, h, e, 1);
    }
    if (c.embedding_norm) t.vector("word_embeddings_layernorm", norm_len, 1);
    if (c.family == Family::DeepSeek)
        mla_attention(c, attn_L, t);
    else
        standard_attention(c, attn_L, t);
    recurrent_mixer(c, rec_L, t);
    const int64_t moe_L = count_moe_layers(c), dense_L = L - moe_L;
    if (c.is_moe()) moe_mlp(c, moe_L, t);
    if (c.gated_mlp && c.fused_gate_up) {  // ChatGLM dense_h_to_4h: gate‖up in one matrix
        t.add(n.gate_up, TensorKind::Mlp, h, 2 * c.intermediate, dense_L);
        t.add(n.down, TensorKind::Mlp, c.intermediate, h, dense_L);
    } else if (c.gated_mlp) {
        t.add(n.gate, TensorKind::Mlp, h, c.intermediate, dense_L);
        t.add(n.up, TensorKind::Mlp, h, c.intermediate, dense_L);
        t.add(n.down, TensorKind::Mlp, c.intermediate, h, dense_L);
    } else {  // plain MLP (phi-style up/down); mamba stacks have intermediate 0 and no MLP
        t.add(n.up, TensorKind::Mlp, h, c.intermediate, dense_L);
        t.add(n.down, TensorKind::Mlp, c.intermediate, h, dense_L);
    }
    if (c.mlp_bias && c.intermediate > 0)
        t.vector("mlp.biases", (c.gated_mlp ? 2 : 1) * c.intermediate + h, dense_L);
    t.vector("layernorm", norm_len, L * c.norms_per_layer);
    if (c.cross_attention_layers > 0)  // Mllama cross-attention: q/k RMSNorms over head_dim + two gates
        t.vector("cross_attn.norms_and_gates", 2 * (c.head_dim > 0 ? c.head_dim : h / std::max<int64_t>(c.heads, 1)) + 2, c.cross_attention_layers);
    if (c.final_norm) t.vector("norm", norm_len, 1);
    if (c.head != Head::CausalLM) return;  // other heads: core/model/params_heads.cpp
    if (!c.tied_embeddings) t.add(n.head, TensorKind::Head, e, c.vocab, 1);
    if (c.lm_head_bias) t.vector("lm_head.bias", c.vocab, 1);
}

// GPT-2, GPT-BigCode, GPT-NeoX and Falcon share one layout: fused QKV (width
// q + 2·kv, so multi-query StarCoder/Falcon and plain MHA alike), a plain
// GELU MLP, LayerNorms. Only the module names differ (they matter for LoRA
// targets) plus which biases exist; GPT-2/BigCode add learned positions.
struct PlainLayout {
    const char *embed, *qkv, *attn_out, *fc_in, *fc_out, *norm, *final_norm, *head;
    const char *qkv_bias, *attn_out_bias, *fc_in_bias, *fc_out_bias;
};

const PlainLayout kGpt2Names = {"wte", "c_attn", "c_proj", "c_fc", "c_proj", "ln", "ln_f", "lm_head",
                                "c_attn.bias", "c_proj.bias", "c_fc.bias", "mlp.c_proj.bias"};
const PlainLayout kNeoXNames = {"embed_in", "query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h",
                                "layer_norm", "final_layer_norm", "embed_out", "query_key_value.bias",
                                "dense.bias", "dense_h_to_4h.bias", "dense_4h_to_h.bias"};
const PlainLayout kFalconNames = {"word_embeddings", "query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h",
                                  "ln", "ln_f", "lm_head", "query_key_value.bias", "dense.bias",
                                  "dense_h_to_4h.bias", "dense_4h_to_h.bias"};

void plain_transformer(const ModelConfig& c, const PlainLayout& n, TensorList& t) {
    const int64_t L = c.layers, h = c.hidden, I = c.intermediate;
    const int64_t q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim;
    t.add(n.embed, TensorKind::Embedding, c.vocab, h, 1);
    if (c.max_positions > 0) t.add("wpe", TensorKind::Embedding, c.max_positions, h, 1);
    t.add(n.qkv, TensorKind::Attention, h, q + 2 * kv, L);
    if (c.qkv_bias) t.vector(n.qkv_bias, q + 2 * kv, L);
    t.add(n.attn_out, TensorKind::Attention, q, h, L);
    if (c.attn_output_bias) t.vector(n.attn_out_bias, h, L);
    t.add(n.fc_in, TensorKind::Mlp, h, I, L);
    if (c.mlp_bias) t.vector(n.fc_in_bias, I, L);
    t.add(n.fc_out, TensorKind::Mlp, I, h, L);
    if (c.mlp_bias) t.vector(n.fc_out_bias, h, L);
    const int64_t norm_len = c.norm_bias ? 2 * h : h;
    t.vector(n.norm, norm_len, c.norms_per_layer * L);
    t.vector(n.final_norm, norm_len, 1);
    if (!c.tied_embeddings && c.head == Head::CausalLM) t.add(n.head, TensorKind::Head, h, c.vocab, 1);
}

// Mamba / Mamba-2 language models: embeddings, one mixer + one RMSNorm per
// layer, final norm_f, head tied by default.
void ssm_stack(const ModelConfig& c, TensorList& t) {
    t.add("embeddings", TensorKind::Embedding, c.vocab, c.hidden, 1);
    recurrent_mixer(c, c.layers, t);
    t.vector("norm", c.hidden, c.layers);
    t.vector("norm_f", c.hidden, 1);
    if (!c.tied_embeddings && c.head == Head::CausalLM) t.add("lm_head", TensorKind::Head, c.hidden, c.vocab, 1);
}

}  // namespace

std::vector<Tensor> list_tensors(const ModelConfig& config) {
    TensorList t;
    switch (config.family) {
        case Family::LlamaLike:
        case Family::DeepSeek: decoder(config, t); break;
        case Family::Gpt2: plain_transformer(config, kGpt2Names, t); break;
        case Family::GptNeoX: plain_transformer(config, kNeoXNames, t); break;
        case Family::Falcon: plain_transformer(config, kFalconNames, t); break;
        case Family::Mamba: ssm_stack(config, t); break;
        case Family::Encoder: encoder_model(config, t); break;
        case Family::EncoderDecoder: encoder_decoder_model(config, t); break;
        case Family::Explicit: break;
    }
    if (config.family != Family::Explicit) {
        head_tensors(config, t);  // core/model/params_heads.cpp
        vision_tower(config, t);
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
        if (t.kind == TensorKind::Vision) counts.vision += p;
        if (t.kind == TensorKind::RoutedExpert) counts.routed_experts += p;
    }
    if (counts.total > kMaxParams)
        throw InputError("config", "describes an absurd model (" + printf_text("%.3g", counts.total) +
                                       " parameters > 1e15); check hidden_size, layers and expert counts");
    return counts;
}

}  // namespace vramcalc
