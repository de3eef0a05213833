#include "model/config_arch.hpp"

#include <cmath>
#include <set>

#include "model/config_read.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;
using namespace cfg;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Mamba's "time_step_rank" / Jamba's "mamba_dt_rank" may be "auto":
// ceil(hidden / 16) (transformers models/mamba/configuration_mamba.py).
int64_t dt_rank(const json& c, const char* key, int64_t hidden) {
    auto it = c.find(key);
    if (it == c.end() || it->is_null() || (it->is_string() && it->get<std::string>() == "auto"))
        return (hidden + 15) / 16;
    return whole_field(*it, field_name(key), 1, kMaxHidden);
}

// Per-layer per-sequence state of the recurrent mixers (what the KV-cache
// code adds instead of a growing cache), from the cache shapes in
// transformers: MambaCache conv (d_inner, d_conv) + ssm (d_inner, N);
// Mamba2 conv (d_inner + 2GN, d_conv) + ssm (H, P, N); Qwen3-Next conv
// (2·key_dim + value_dim, kernel) + recurrent (Hv, Dk, Dv); MiniMax lightning
// attention keeps one d×d state per head.
void state_sizes(ModelConfig& m) {
    RecurrentDims& r = m.recurrent;
    if (m.recurrent_mixer == Mixer::Mamba && !m.mamba2) {
        r.conv_state_values = r.d_inner * r.d_conv;
        r.ssm_state_values = r.d_inner * r.d_state;
    } else if (m.recurrent_mixer == Mixer::Mamba) {
        r.conv_state_values = (r.d_inner + 2 * r.groups * r.d_state) * r.d_conv;
        r.ssm_state_values = r.heads * r.head_dim * r.d_state;
    } else if (m.linear_attention_kind == 1) {
        r.conv_state_values = (2 * r.key_dim + r.d_inner) * r.d_conv;
        r.ssm_state_values = r.heads * r.d_state * r.head_dim;
    } else {
        r.conv_state_values = 0;
        r.ssm_state_values = r.heads * r.head_dim * r.head_dim;
    }
}

void mamba1_dims(const json& c, ModelConfig& m, const char* expand_key, const char* state_key, const char* conv_key,
                 const char* rank_key) {
    RecurrentDims& r = m.recurrent;
    m.recurrent_mixer = Mixer::Mamba;
    r.d_inner = read_count(c, {expand_key}, 64, false, 2) * m.hidden;
    r.d_state = read_count(c, {state_key}, kMaxHidden, false, 16);
    r.d_conv = read_count(c, {conv_key}, 64, false, 4);
    r.dt_rank = dt_rank(c, rank_key, m.hidden);
}

void mamba2_dims(const json& c, ModelConfig& m, std::initializer_list<const char*> heads,
                 std::initializer_list<const char*> head_dim, std::initializer_list<const char*> state,
                 std::initializer_list<const char*> groups, std::initializer_list<const char*> conv) {
    RecurrentDims& r = m.recurrent;
    m.recurrent_mixer = Mixer::Mamba;
    m.mamba2 = true;
    r.heads = read_count(c, heads, kMaxHeads, true);
    r.head_dim = read_count(c, head_dim, kMaxHidden, true);
    r.d_state = read_count(c, state, kMaxHidden, false, 128);
    r.groups = read_count(c, groups, kMaxHeads, false, 1);
    r.d_conv = read_count(c, conv, 64, false, 4);
    r.d_inner = r.heads * r.head_dim;
}

std::vector<bool> moe_flags(const json& c, const ModelConfig& m) {
    const std::string& t = m.model_type;
    const int64_t L = m.layers;
    std::vector<bool> moe(static_cast<size_t>(L), true);
    auto set = [&](auto rule) {
        for (int64_t i = 0; i < L; ++i) moe[static_cast<size_t>(i)] = rule(i);
    };
    if (m.family == Family::DeepSeek || t == "glm4_moe") {
        const int64_t first = read_count(c, {"first_k_dense_replace"}, kMaxLayers, false, 0, true);
        const int64_t freq = read_count(c, {"moe_layer_freq"}, kMaxLayers, false, 1);
        set([&](int64_t i) { return i >= first && i % freq == 0; });
    } else if (t == "qwen2_moe" || t == "qwen3_moe" || t == "qwen3_next" || t == "qwen3_vl_moe_text" ||
               t == "qwen3_5_moe_text") {
        const int64_t step = read_count(c, {"decoder_sparse_step"}, kMaxLayers, false, 1);
        std::set<int64_t> mlp_only;
        auto it = c.find("mlp_only_layers");
        if (it != c.end() && !it->is_null()) {
            if (!it->is_array()) throw InputError("config.mlp_only_layers", "must be a list of layer indices");
            for (const auto& v : *it) mlp_only.insert(whole_field(v, "config.mlp_only_layers", 0, kMaxLayers));
        }
        set([&](int64_t i) { return !mlp_only.count(i) && (i + 1) % step == 0; });
    } else if (t == "llama4_text") {
        // transformers Llama4TextConfig: moe_layers = range(step - 1, L, step).
        const int64_t step = read_count(c, {"interleave_moe_layer_step"}, kMaxLayers, false, 1);
        set([&](int64_t i) { return (i + 1) % step == 0; });
    } else if (t == "jamba") {
        const int64_t period = read_count(c, {"expert_layer_period"}, kMaxLayers, false, 2);
        const int64_t offset = read_count(c, {"expert_layer_offset"}, kMaxLayers, false, 1, true);
        set([&](int64_t i) { return i % period == offset; });
    } else if (t == "ernie4_5_moe") {
        const int64_t start = read_count(c, {"moe_layer_start_index"}, kMaxLayers, false, 0, true);
        const int64_t every = read_count(c, {"moe_layer_interval"}, kMaxLayers, false, 1);
        set([&](int64_t i) { return i >= start && (i - start) % every == 0; });
    }
    return moe;
}

// First element of a per-layer list (Hunyuan writes moe_topk etc. per layer), or the number itself.
int64_t first_or_number(const json& c, std::initializer_list<const char*> keys, const Cap& max, bool required,
                        int64_t fallback, bool allow_zero = false) {
    const char* key = present_key(c, keys);
    if (key && c.at(key).is_array()) {
        if (c.at(key).empty()) throw InputError(field_name(key), "must not be an empty list");
        return capped_field(c.at(key)[0], field_name(key), allow_zero ? 0 : 1, max);
    }
    return read_count(c, keys, max, required, fallback, allow_zero);
}

Mixer mixer_named(const std::string& name) {
    if (name == "full_attention" || name == "attention" || name == "global") return Mixer::FullAttention;
    if (name == "sliding_attention" || name == "local" || name == "sliding_window") return Mixer::SlidingAttention;
    if (name == "chunked_attention") return Mixer::ChunkedAttention;
    if (name == "linear_attention") return Mixer::LinearAttention;
    if (name == "mamba") return Mixer::Mamba;
    throw InputError("config.layer_types", "unknown layer type '" + short_text(name) +
                                               "'; expected full_attention, sliding_attention, chunked_attention, "
                                               "linear_attention, attention or mamba");
}

}  // namespace

void apply_architecture(const json& c, ModelConfig& m) {
    const std::string& t = m.model_type;
    if (m.family == Family::Gpt2 || m.family == Family::GptNeoX)
        m.qkv_bias = m.attn_output_bias = m.mlp_bias = m.norm_bias = true;
    if (m.family == Family::Falcon) {
        // transformers models/falcon/configuration_falcon.py: "bias" on every
        // linear (false for 7B/40B/180B), LayerNorms with bias; the old layout
        // runs attention and MLP in parallel from one norm, the new decoder
        // architecture (40B, 180B) has ln_attn + ln_mlp and num_kv_heads groups.
        const bool bias = read_bool(c, "bias", false);
        m.qkv_bias = m.attn_output_bias = m.mlp_bias = bias;
        m.norm_bias = true;
        const bool new_arch = read_bool(c, "new_decoder_architecture", false);
        if (new_arch) {
            m.kv_heads = read_count(c, {"num_kv_heads", "n_head_kv"}, kMaxHeads, false, m.heads);
            m.norms_per_layer = read_count(c, {"num_ln_in_parallel_attn"}, 2, false, 2);
        } else {
            m.norms_per_layer = read_bool(c, "parallel_attn", true) ? 1 : 2;
        }
        m.parallel_block = new_arch || read_bool(c, "parallel_attn", true);
        if (m.heads % m.kv_heads != 0) throw InputError("config.num_kv_heads", "must divide num_attention_heads");
    }
    if (t == "phimoe") {
        // PhiMoE (Phi-3.5-MoE): LayerNorm with bias, attention_bias on q/k/v/o, lm_head_bias.
        m.norm = NormKind::LayerNorm;
        m.norm_bias = true;
        m.attn_output_bias = m.qkv_bias;
        m.lm_head_bias = read_bool(c, "lm_head_bias", false);
    }
    if (t == "gpt_oss") {
        // transformers models/gpt_oss/modeling_gpt_oss.py: attention_bias covers
        // o_proj too; `sinks` (num_attention_heads,) per layer; experts and router with biases.
        m.attn_output_bias = m.qkv_bias;
        m.attention_sinks = true;
        m.expert_bias = true;
    }
    if (t == "llama4_text") {
        // Dense layers use intermediate_size_mlp; intermediate_size is the expert width (parse_moe).
        m.intermediate = read_count(c, {"intermediate_size_mlp"}, kMaxIntermediate, false, m.intermediate);
    }
    if (t == "olmo2") m.qk_norm_full = true;  // Olmo2Attention: q_norm(hidden), k_norm(kv width)
    if (t == "cohere" || t == "cohere2") {
        // CohereLayerNorm (weight, no bias), one norm per layer feeding attention
        // and MLP in parallel; Command R+ adds per-head q/k LayerNorms.
        m.norm = NormKind::LayerNorm;
        m.norms_per_layer = 1;
        m.parallel_block = true;
        m.qk_norm = read_bool(c, "use_qk_norm", false);
        m.qk_norm_per_head_matrix = m.qk_norm;
    }
    if (t == "glm4_moe" || t == "hunyuan_v1_moe") m.qk_norm = read_bool(c, "use_qk_norm", false);
    // e_score_correction_bias per MoE layer (ERNIE 4.5: Ernie4_5_MoeStatics, shape 1 × experts).
    if (t == "glm4_moe" || t == "deepseek_v3" || t == "kimi_k2" || t == "ernie4_5_moe") m.router_bias = true;
    // DeepseekV3MoE's gate (transformers modeling_deepseek_v3.py DeepseekV3TopkRouter.forward):
    // F.linear(hidden_states.float(), weight.float()), sigmoid scores, fp32 weighted sum of expert outputs.
    if (t == "deepseek_v3") m.fp32_router = true;
    if (t == "qwen2_moe" || t == "qwen3_next") m.shared_expert_gate = true;
    if (t == "qwen3_next" || t == "qwen3_5_text" || t == "qwen3_5_moe_text") {
        m.attn_output_gate = true;  // Qwen3NextAttention: q_proj -> heads·head_dim·2 (query + gate)
        m.recurrent_mixer = Mixer::LinearAttention;
        m.linear_attention_kind = 1;
        RecurrentDims& r = m.recurrent;
        const int64_t k_heads = read_count(c, {"linear_num_key_heads"}, kMaxHeads, true);
        r.heads = read_count(c, {"linear_num_value_heads"}, kMaxHeads, true);
        r.d_state = read_count(c, {"linear_key_head_dim"}, kMaxHidden, true);
        r.head_dim = read_count(c, {"linear_value_head_dim"}, kMaxHidden, true);
        r.d_conv = read_count(c, {"linear_conv_kernel_dim"}, 64, false, 4);
        r.groups = k_heads;
        r.key_dim = k_heads * r.d_state;
        r.d_inner = r.heads * r.head_dim;
    }
    if (t == "minimax") {
        m.recurrent_mixer = Mixer::LinearAttention;
        m.linear_attention_kind = 2;
        m.recurrent.heads = m.heads;
        m.recurrent.head_dim = m.head_dim;
    }
    if (t == "mamba") mamba1_dims(c, m, "expand", "state_size", "conv_kernel", "time_step_rank");
    if (t == "jamba") mamba1_dims(c, m, "mamba_expand", "mamba_d_state", "mamba_d_conv", "mamba_dt_rank");
    if (t == "mamba2")
        mamba2_dims(c, m, {"num_heads"}, {"head_dim"}, {"state_size"}, {"n_groups"}, {"conv_kernel"});
    if (t == "granitemoehybrid")
        mamba2_dims(c, m, {"mamba_n_heads"}, {"mamba_d_head"}, {"mamba_d_state"}, {"mamba_n_groups"}, {"mamba_d_conv"});
    if (t == "mllama_text_model") {
        // transformers models/mllama/modeling_mllama.py: MllamaCrossAttentionDecoderLayer at
        // cross_attention_layers (same q, k, v, o and MLP sizes, plus q/k RMSNorms over head_dim
        // and two tanh gates); embed_tokens has vocab_size + 8 rows.
        auto it = c.find("cross_attention_layers");
        if (it != c.end() && !it->is_null()) {
            if (!it->is_array()) throw InputError("config.cross_attention_layers", "must be a list of layer indices");
            for (const auto& v : *it) whole_field(v, "config.cross_attention_layers", 0, m.layers - 1);
            m.cross_attention_layers = static_cast<int64_t>(it->size());
        }
        m.extra_embeddings = 8;
    }
    if (t == "falcon_h1") {
        // transformers models/falcon_h1/modeling_falcon_h1.py FalconH1DecoderLayer: attention and a
        // Mamba-2 mixer (FalconH1Mixer, width mamba_d_ssm) read the same normed input and their outputs
        // are summed; then pre_ff_layernorm and a SwiGLU MLP. mamba_rms_norm (default false in
        // FalconH1Config) adds the mixer's gated RMSNorm.
        mamba2_dims(c, m, {"mamba_n_heads"}, {"mamba_d_head"}, {"mamba_d_state"}, {"mamba_n_groups"}, {"mamba_d_conv"});
        if (c.contains("mamba_d_ssm")) m.recurrent.d_inner = read_count(c, {"mamba_d_ssm"}, kMaxHidden, true);
        m.parallel_hybrid = true;
        m.mamba_norm = read_bool(c, "mamba_rms_norm", false);
    }
    if (m.family == Family::Mamba) m.norms_per_layer = 1;
    if (m.recurrent.d_inner > 0 || m.recurrent.heads > 0) state_sizes(m);
}

void parse_moe(const json& c, ModelConfig& m) {
    const std::string& t = m.model_type;
    m.layer_kinds.assign(static_cast<size_t>(m.layers), LayerKind{});
    m.experts = read_count(c, {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"},
                           kMaxExperts, false, 0, true);
    // Granite: shared_intermediate_size is the always-on MLP (the only MLP when there are no experts).
    const int64_t granite_shared = starts_with(t, "granitemoe")
                                       ? read_count(c, {"shared_intermediate_size"}, kMaxIntermediate, false, 0, true)
                                       : 0;
    if (m.experts == 0) {
        if (granite_shared > 0) m.intermediate = granite_shared;
        return;
    }
    m.experts_per_token = first_or_number(c, {"num_experts_per_tok", "experts_per_token", "moe_k", "moe_topk"},
                                          kMaxExperts, true, 0);
    if (m.experts_per_token > m.experts)
        throw InputError("config.num_experts_per_tok",
                         "is larger than the number of experts (" + std::to_string(m.experts) + ")");
    // Mixtral-style experts are as wide as intermediate_size; fine-grained MoE
    // sets moe_intermediate_size; Llama 4's intermediate_size is the expert width.
    const int64_t declared_width = read_count(c, {"intermediate_size"}, kMaxIntermediate, false, m.intermediate);
    m.moe_intermediate = first_or_number(c, {"moe_intermediate_size"}, kMaxIntermediate, false,
                                         t == "llama4_text" ? declared_width : m.intermediate);
    m.shared_experts = first_or_number(c, {"n_shared_experts", "moe_num_shared_experts", "num_shared_expert"},
                                       kMaxExperts, false, 0, true);
    m.shared_expert_intermediate =
        read_count(c, {"shared_expert_intermediate_size"}, kMaxIntermediate, false, 0, true);
    if (t == "llama4_text") m.shared_expert_intermediate = declared_width;  // Llama4TextMoe.shared_expert
    if (granite_shared > 0) m.shared_expert_intermediate = granite_shared;
    const std::vector<bool> moe = moe_flags(c, m);
    m.dense_layers = 0;
    for (size_t i = 0; i < moe.size(); ++i) {
        m.layer_kinds[i].moe = moe[i];
        m.dense_layers += moe[i] ? 0 : 1;
    }
}

void parse_layer_kinds(const json& c, ModelConfig& m) {
    const std::string& t = m.model_type;
    const int64_t L = m.layers;
    if (static_cast<int64_t>(m.layer_kinds.size()) != L) m.layer_kinds.assign(static_cast<size_t>(L), LayerKind{});
    // Defaults when a config omits the window: the family's PretrainedConfig
    // default (transformers configuration_gemma2.py / gemma3 / cohere2: 4096;
    // configuration_gpt_oss.py: 128).
    const int64_t default_window = t == "gpt_oss" ? 128 : (t == "gemma2" || t == "gemma3_text" || t == "cohere2") ? 4096 : 0;
    const int64_t sliding = read_count(c, {"sliding_window"}, 100'000'000, false, default_window, true);
    const int64_t chunk = read_count(c, {"attention_chunk_size"}, 100'000'000, false, 8192);
    auto kind = [&](int64_t i) -> LayerKind& { return m.layer_kinds[static_cast<size_t>(i)]; };
    auto set_mixer = [&](int64_t i, Mixer x) {
        kind(i).mixer = x;
        kind(i).window = x == Mixer::SlidingAttention ? sliding : x == Mixer::ChunkedAttention ? chunk : 0;
    };
    auto it = c.find("layer_types");
    if (it != c.end() && !it->is_null()) {
        if (!it->is_array() || static_cast<int64_t>(it->size()) != L)
            throw InputError("config.layer_types", "must list one type per layer (" + std::to_string(L) + ")");
        for (int64_t i = 0; i < L; ++i) set_mixer(i, mixer_named(text_field((*it)[static_cast<size_t>(i)],
                                                                             "config.layer_types")));
    } else if (t == "gemma2") {
        for (int64_t i = 0; i < L; ++i) set_mixer(i, i % 2 == 0 ? Mixer::SlidingAttention : Mixer::FullAttention);
    } else if (t == "gemma3_text" || t == "cohere2") {
        // Every `pattern`-th layer is global: Gemma 3 pattern 6 (5 local : 1 global), Command A 4.
        const int64_t pattern = read_count(c, {"sliding_window_pattern"}, kMaxLayers, false, t == "cohere2" ? 4 : 6);
        for (int64_t i = 0; i < L; ++i)
            set_mixer(i, (i + 1) % pattern != 0 ? Mixer::SlidingAttention : Mixer::FullAttention);
    } else if (t == "gpt_oss") {
        for (int64_t i = 0; i < L; ++i) set_mixer(i, i % 2 == 0 ? Mixer::SlidingAttention : Mixer::FullAttention);
    } else if (t == "olmo3") {
        // transformers Olmo3Config without layer_types: every 4th layer full, the others sliding.
        for (int64_t i = 0; i < L; ++i) set_mixer(i, (i + 1) % 4 != 0 ? Mixer::SlidingAttention : Mixer::FullAttention);
    } else if (t == "llama4_text") {
        // RoPE layers use chunked attention, every 4th (NoPE) layer is global
        // (transformers Llama4TextConfig: no_rope_layer_interval 4).
        const int64_t interval = read_count(c, {"no_rope_layer_interval"}, kMaxLayers, false, 4);
        for (int64_t i = 0; i < L; ++i)
            set_mixer(i, (i + 1) % interval != 0 ? Mixer::ChunkedAttention : Mixer::FullAttention);
    } else if (t == "qwen3_next" || t == "qwen3_5_text" || t == "qwen3_5_moe_text") {
        const int64_t interval = read_count(c, {"full_attention_interval"}, kMaxLayers, false, 4);
        for (int64_t i = 0; i < L; ++i)
            set_mixer(i, (i + 1) % interval == 0 ? Mixer::FullAttention : Mixer::LinearAttention);
    } else if (t == "jamba") {
        const int64_t period = read_count(c, {"attn_layer_period"}, kMaxLayers, false, 8);
        const int64_t offset = read_count(c, {"attn_layer_offset"}, kMaxLayers, false, 4, true);
        for (int64_t i = 0; i < L; ++i) set_mixer(i, i % period == offset ? Mixer::FullAttention : Mixer::Mamba);
    } else if (t == "minimax") {
        auto list = c.find("attn_type_list");
        if (list == c.end() || !list->is_array() || static_cast<int64_t>(list->size()) != L)
            throw InputError("config.attn_type_list", "must list 0 (lightning) or 1 (softmax) for each layer");
        for (int64_t i = 0; i < L; ++i)
            set_mixer(i, whole_field((*list)[static_cast<size_t>(i)], "config.attn_type_list", 0, 1) == 1
                             ? Mixer::FullAttention : Mixer::LinearAttention);
    } else if (m.family == Family::Mamba) {
        for (int64_t i = 0; i < L; ++i) set_mixer(i, Mixer::Mamba);
    } else if (t == "granitemoehybrid") {
        throw InputError("config.layer_types", "missing (Granite hybrid configs list mamba/attention per layer)");
    } else if (sliding > 0 && (t == "mistral" || t == "mixtral" || t == "phi3" || t == "phimoe" ||
                               ((t == "qwen2" || t == "qwen2_moe") && read_bool(c, "use_sliding_window", false)))) {
        for (int64_t i = 0; i < L; ++i) set_mixer(i, Mixer::SlidingAttention);
    }
    for (int64_t i = 0; i < L; ++i) {
        const Mixer x = kind(i).mixer;
        if ((x == Mixer::SlidingAttention || x == Mixer::ChunkedAttention) && kind(i).window <= 0)
            throw InputError(x == Mixer::SlidingAttention ? "config.sliding_window" : "config.attention_chunk_size",
                             "missing (layer " + std::to_string(i) + " is windowed)");
        if ((x == Mixer::LinearAttention || x == Mixer::Mamba) && m.recurrent.d_inner <= 0 && m.recurrent.heads <= 0)
            throw InputError("config.layer_types", "layer " + std::to_string(i) +
                                                       " is recurrent but this architecture has no recurrent mixer");
        if (x == Mixer::LinearAttention || x == Mixer::Mamba) m.recurrent_mixer = x;
    }
}

}  // namespace vramcalc
