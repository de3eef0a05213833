// Which token mixer each layer has, read from config.json, for the KV cache:
// full attention, sliding window, chunked local attention, or a linear
// attention / SSM layer with a constant-size state. Kept apart from
// config.cpp so it merges with the models helper's architecture work.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "model/config.hpp"
#include "text/errors.hpp"
#include "text/json_text.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;
using Kind = ModelConfig::KvKind;

bool has(const json& c, const char* key) { return c.contains(key) && !c.at(key).is_null(); }

int64_t whole(const json& c, const char* key, int64_t fallback) {
    return has(c, key) ? whole_field(c.at(key), std::string("config.") + key, 0, 100'000'000) : fallback;
}

// layer_types as transformers writes it (Gemma 3, gpt-oss, Qwen3-Next,
// Granite 4, ...): "full_attention", "sliding_attention",
// "chunked_attention", "linear_attention", "mamba", "attention".
std::vector<Kind> read_layer_types(const json& c, int64_t layers) {
    const json& v = c.at("layer_types");
    if (!v.is_array()) throw InputError("config.layer_types", "must be a list of layer kinds, got " + describe_value(v));
    if (layers > 0 && static_cast<int64_t>(v.size()) != layers)
        throw InputError("config.layer_types", "has " + std::to_string(v.size()) + " entries for " +
                                                   std::to_string(layers) + " layers");
    std::vector<Kind> kinds;
    for (const json& t : v) {
        const std::string s = text_field(t, "config.layer_types");
        if (s.find("sliding") != std::string::npos) kinds.push_back(Kind::Sliding);
        else if (s.find("chunk") != std::string::npos) kinds.push_back(Kind::Chunked);
        else if (s.find("linear") != std::string::npos || s.find("mamba") != std::string::npos) kinds.push_back(Kind::Linear);
        else if (s.find("attention") != std::string::npos) kinds.push_back(Kind::Full);
        else throw InputError("config.layer_types", "unknown layer kind '" + short_text(s) + "'");
    }
    return kinds;
}

std::vector<Kind> every(int64_t layers, Kind k) { return std::vector<Kind>(static_cast<size_t>(layers), k); }

// The constant per-sequence state of a linear/SSM layer, in values.
// - Mamba-2 (Falcon-H1, Granite 4, Nemotron-H): conv state (d_conv − 1) ×
//   (d_inner + 2·n_groups·d_state) and SSM state n_heads × d_head × d_state
//   (vllm model_executor/layers/mamba/mamba_utils.py MambaStateShapeCalculator.mamba2_state_shape).
// - Mamba-1 (Mamba, Jamba): conv (d_conv − 1) × d_inner, SSM d_inner × d_state (mamba1_state_shape).
// - Gated DeltaNet (Qwen3-Next): conv (k − 1) × (2·n_k·d_k + n_v·d_v), recurrent n_v × d_k × d_v
//   (gated_delta_net_state_shape).
void read_linear_state(const json& c, ModelConfig& m) {
    if (has(c, "linear_num_value_heads")) {
        const int64_t nk = whole(c, "linear_num_key_heads", 0), nv = whole(c, "linear_num_value_heads", 0);
        const int64_t dk = whole(c, "linear_key_head_dim", 0), dv = whole(c, "linear_value_head_dim", 0);
        const int64_t k = whole(c, "linear_conv_kernel_dim", 4);
        m.linear_state_fp32_elems = 0;
        m.linear_state_elems = (k - 1) * (2 * nk * dk + nv * dv) + nv * dk * dv;
        return;
    }
    if (has(c, "mamba_n_heads") || has(c, "mamba_d_head")) {
        const int64_t d_state = whole(c, "mamba_d_state", 128), d_conv = whole(c, "mamba_d_conv", 4);
        const int64_t groups = whole(c, "mamba_n_groups", 1);
        const int64_t heads = whole(c, "mamba_n_heads", 0), d_head = whole(c, "mamba_d_head", 64);
        const int64_t d_inner = heads > 0 ? heads * d_head : whole(c, "mamba_expand", 2) * m.hidden;
        const int64_t n_heads = heads > 0 ? heads : d_inner / d_head;
        m.linear_state_fp32_elems = n_heads * d_head * d_state;
        m.linear_state_elems = (d_conv - 1) * (d_inner + 2 * groups * d_state) + m.linear_state_fp32_elems;
        return;
    }
    const bool jamba = has(c, "mamba_d_state");
    if (jamba || has(c, "state_size")) {
        const int64_t d_state = jamba ? whole(c, "mamba_d_state", 16) : whole(c, "state_size", 16);
        const int64_t d_conv = jamba ? whole(c, "mamba_d_conv", 4) : whole(c, "conv_kernel", 4);
        const int64_t d_inner = (jamba ? whole(c, "mamba_expand", 2) : whole(c, "expand", 2)) * m.hidden;
        m.linear_state_fp32_elems = d_inner * d_state;
        m.linear_state_elems = (d_conv - 1) * d_inner + m.linear_state_fp32_elems;
    }
}

}  // namespace

int64_t ModelConfig::kv_kind_count(KvKind k) const {
    if (kv_kinds.empty()) return k == KvKind::Full ? layers : 0;
    if (counted_kv == kv_kinds.size()) return kv_counts[static_cast<size_t>(k)];
    int64_t n = 0;
    for (KvKind x : kv_kinds) n += x == k;
    return n;
}

static_assert(static_cast<int>(ModelConfig::KvKind::None) == 5, "kv_counts holds one count per KvKind");

void ModelConfig::count_layer_kinds() {
    counted_kv = counted_kinds = SIZE_MAX;  // count afresh below
    for (size_t k = 0; k < 6; ++k) kv_counts[k] = kv_kind_count(static_cast<KvKind>(k));
    attention_count = attention_layers();
    counted_kv = kv_kinds.size();
    counted_kinds = layer_kinds.size();
}

void parse_attention_layout(const json& c, ModelConfig& m) {
    const int64_t L = m.layers;
    read_linear_state(c, m);
    m.sink_tokens = whole(c, "attention_sink_tokens", 0);
    // Qwen2 configs carry sliding_window but use_sliding_window false: no window.
    const bool window_on = has(c, "sliding_window") && !(has(c, "use_sliding_window") && !c.at("use_sliding_window").get<bool>());
    if (window_on) m.sliding_window = whole(c, "sliding_window", 0);
    m.attention_chunk = whole(c, "attention_chunk_size", 0);
    if (L <= 0) return;
    if (has(c, "layer_types")) {
        m.kv_kinds = read_layer_types(c, L);
    } else if (m.model_type == "gemma2" && m.sliding_window > 0) {
        // transformers Gemma2Config: layer i slides when (i + 1) % 2 != 0.
        m.kv_kinds = every(L, Kind::Full);
        for (int64_t i = 0; i < L; ++i) m.kv_kinds[i] = (i + 1) % 2 ? Kind::Sliding : Kind::Full;
    } else if (m.model_type == "gemma3_text" && m.sliding_window > 0) {
        // transformers Gemma3TextConfig: sliding_window_pattern 6 -> every 6th layer global.
        const int64_t pattern = whole(c, "sliding_window_pattern", 6);
        m.kv_kinds = every(L, Kind::Full);
        for (int64_t i = 0; i < L; ++i) m.kv_kinds[i] = (i + 1) % pattern ? Kind::Sliding : Kind::Full;
    } else if (m.model_type == "olmo3" && m.sliding_window > 0) {
        // transformers Olmo3Config without layer_types: every 4th layer full, the others sliding.
        m.kv_kinds = every(L, Kind::Full);
        for (int64_t i = 0; i < L; ++i) m.kv_kinds[i] = (i + 1) % 4 ? Kind::Sliding : Kind::Full;
    } else if (m.attention_chunk > 0) {
        // Llama 4: no_rope_layers[i] == 0 marks a global NoPE layer; default every 4th
        // (transformers Llama4TextConfig no_rope_layer_interval 4).
        m.kv_kinds = every(L, Kind::Chunked);
        const bool listed = has(c, "no_rope_layers") && c.at("no_rope_layers").is_array() &&
                            static_cast<int64_t>(c.at("no_rope_layers").size()) == L;
        for (int64_t i = 0; i < L; ++i)
            if (listed ? c.at("no_rope_layers")[i] == 0 : (i + 1) % 4 == 0) m.kv_kinds[i] = Kind::Full;
    } else if (has(c, "full_attention_interval") && m.linear_state_elems > 0) {
        // Qwen3-Next: every full_attention_interval-th layer is full attention, the rest Gated DeltaNet.
        const int64_t every_n = std::max<int64_t>(1, whole(c, "full_attention_interval", 4));
        m.kv_kinds = every(L, Kind::Linear);
        for (int64_t i = 0; i < L; ++i)
            if ((i + 1) % every_n == 0) m.kv_kinds[i] = Kind::Full;
    } else if (has(c, "attn_layer_period") && m.linear_state_elems > 0) {
        // Jamba: attention at offset attn_layer_offset of every attn_layer_period layers, Mamba elsewhere.
        const int64_t period = std::max<int64_t>(1, whole(c, "attn_layer_period", 8)), offset = whole(c, "attn_layer_offset", 4);
        m.kv_kinds = every(L, Kind::Linear);
        for (int64_t i = 0; i < L; ++i)
            if (i % period == offset) m.kv_kinds[i] = Kind::Full;
    } else if (has(c, "parallel_hybrid") || (has(c, "mamba_d_ssm") && m.linear_state_elems > 0)) {
        m.kv_kinds = every(L, Kind::FullAndLinear);  // Falcon-H1: attention and Mamba-2 in every layer
    } else if (m.cross_attention_layers > 0 && m.vision.kind == "mllama" && c.contains("cross_attention_layers")) {
        // Llama 3.2 Vision: a cross-attention layer keeps the keys and values of the image tokens
        // (max_num_tiles × (patches + 1) per image, one image per sequence), whatever the text's
        // length (vLLM's encoder-decoder cross KV; transformers' cross-attention cache).
        const int64_t kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
        const int64_t hd = m.head_dim > 0 ? m.head_dim : m.hidden / std::max<int64_t>(1, m.heads);
        m.linear_state_fp32_elems = 0;
        m.linear_state_elems = 2 * kv * hd * m.vision.tiles * m.vision.positions;
        m.kv_kinds = every(L, Kind::Full);
        for (const auto& v : c.at("cross_attention_layers")) m.kv_kinds[static_cast<size_t>(v.get<int64_t>())] = Kind::Linear;
    } else if (m.linear_state_elems > 0 && m.heads == 0) {
        m.kv_kinds = every(L, Kind::Linear);  // pure Mamba
    } else if (m.sliding_window > 0) {
        m.kv_kinds = every(L, Kind::Sliding);  // Mistral v0.1: a 4096-token window in every layer
    }
    if (m.kv_kind_count(Kind::Sliding) > 0 && m.sliding_window <= 0)
        throw InputError("config.sliding_window", "missing; layer_types names sliding-window layers");
    if (m.kv_kind_count(Kind::Chunked) > 0 && m.attention_chunk <= 0)
        throw InputError("config.attention_chunk_size", "missing; layer_types names chunked-attention layers");
    if ((m.kv_kind_count(Kind::Linear) > 0 || m.kv_kind_count(Kind::FullAndLinear) > 0) && m.linear_state_elems <= 0)
        throw InputError("config.layer_types", "names linear/SSM layers but the config gives no state size "
                                               "(mamba_d_state / linear_num_value_heads)");
}

}  // namespace vramcalc
