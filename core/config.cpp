#include "config.hpp"

#include <cmath>
#include <initializer_list>
#include <set>

#include <nlohmann/json.hpp>

#include "errors.hpp"
#include "json_text.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

// Upper bounds well past any real model; they keep arithmetic finite and
// turn typos such as an extra zero-run into a clear message.
constexpr int64_t kMaxHidden = 1'000'000;
constexpr int64_t kMaxLayers = 10'000;
constexpr int64_t kMaxHeads = 100'000;
constexpr int64_t kMaxVocab = 100'000'000;
constexpr int64_t kMaxIntermediate = 10'000'000;
constexpr int64_t kMaxExperts = 100'000;
constexpr double kMaxExplicitParams = 1e15;

struct Known {
    const char* model_type;
    const char* architecture;
    Family family;
    bool tied_by_default;
};

const Known kKnown[] = {
    {"llama", "LlamaForCausalLM", Family::LlamaLike, false},
    {"mistral", "MistralForCausalLM", Family::LlamaLike, false},
    {"mixtral", "MixtralForCausalLM", Family::LlamaLike, false},
    {"qwen2", "Qwen2ForCausalLM", Family::LlamaLike, false},
    {"qwen2_moe", "Qwen2MoeForCausalLM", Family::LlamaLike, false},
    {"qwen3", "Qwen3ForCausalLM", Family::LlamaLike, false},
    {"qwen3_moe", "Qwen3MoeForCausalLM", Family::LlamaLike, false},
    {"gemma", "GemmaForCausalLM", Family::LlamaLike, true},
    {"gemma2", "Gemma2ForCausalLM", Family::LlamaLike, true},
    {"gemma3_text", "Gemma3ForCausalLM", Family::LlamaLike, true},
    {"phi3", "Phi3ForCausalLM", Family::LlamaLike, false},
    {"gpt2", "GPT2LMHeadModel", Family::Gpt2, true},
    {"gpt_neox", "GPTNeoXForCausalLM", Family::GptNeoX, false},
    {"deepseek_v2", "DeepseekV2ForCausalLM", Family::DeepSeek, false},
    {"deepseek_v3", "DeepseekV3ForCausalLM", Family::DeepSeek, false},
};

const Known* find_known(const std::string& model_type) {
    for (const auto& k : kKnown)
        if (model_type == k.model_type) return &k;
    return nullptr;
}

std::string field_name(const char* key) { return std::string("config.") + key; }

// First key of `keys` present (and not null) in `config`, or nullptr.
const char* present_key(const json& config, std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
        auto it = config.find(key);
        if (it != config.end() && !it->is_null()) return key;
    }
    return nullptr;
}

// Reads a whole number from the first present key. Absent → `fallback`
// (or an error when `required`). Fractions, negatives, zero (unless
// `allow_zero`) and values above `max` are rejected with the key's name.
int64_t read_count(const json& config, std::initializer_list<const char*> keys, int64_t max,
                   bool required, int64_t fallback = 0, bool allow_zero = false) {
    const char* key = present_key(config, keys);
    if (!key) {
        if (required) throw InputError(field_name(*keys.begin()), "missing (a required whole number)");
        return fallback;
    }
    return whole_field(config.at(key), field_name(key), allow_zero ? 0 : 1, max);
}

bool read_bool(const json& config, const char* key, bool fallback) {
    auto it = config.find(key);
    if (it == config.end() || it->is_null()) return fallback;
    return bool_field(*it, field_name(key));
}

std::string resolve_model_type(const json& config) {
    auto it = config.find("model_type");
    if (it != config.end() && !it->is_null()) {
        if (!it->is_string()) throw InputError("config.model_type", "must be a string, got " + describe_value(*it));
        return it->get<std::string>();
    }
    auto arch = config.find("architectures");
    if (arch != config.end() && arch->is_array() && !arch->empty() && (*arch)[0].is_string()) {
        const std::string name = (*arch)[0].get<std::string>();
        for (const auto& k : kKnown)
            if (name == k.architecture) return k.model_type;
        return name;
    }
    return "";
}

// Counts how many layers keep a dense MLP in a MoE model.
int64_t count_dense_layers(const json& config, const std::string& model_type, int64_t layers) {
    if (model_type.rfind("deepseek", 0) == 0) {
        int64_t first_dense = read_count(config, {"first_k_dense_replace"}, kMaxLayers, false, 0, true);
        int64_t freq = read_count(config, {"moe_layer_freq"}, kMaxLayers, false, 1);
        int64_t dense = 0;
        for (int64_t i = 0; i < layers; ++i)
            if (i < first_dense || i % freq != 0) ++dense;
        return dense;
    }
    if (model_type == "qwen2_moe" || model_type == "qwen3_moe") {
        int64_t step = read_count(config, {"decoder_sparse_step"}, kMaxLayers, false, 1);
        std::set<int64_t> mlp_only;
        auto it = config.find("mlp_only_layers");
        if (it != config.end() && !it->is_null()) {
            if (!it->is_array()) throw InputError("config.mlp_only_layers", "must be a list of layer indices");
            for (const auto& v : *it) {
                if (!v.is_number_integer() || v.get<int64_t>() < 0)
                    throw InputError("config.mlp_only_layers", "must hold layer indices, got " + describe_value(v));
                mlp_only.insert(v.get<int64_t>());
            }
        }
        int64_t dense = 0;
        for (int64_t i = 0; i < layers; ++i)
            if (mlp_only.count(i) || (i + 1) % step != 0) ++dense;
        return dense;
    }
    return 0;
}

void parse_moe(const json& c, ModelConfig& m) {
    m.experts = read_count(c, {"num_local_experts", "num_experts", "n_routed_experts"}, kMaxExperts, false, 0, true);
    if (m.experts == 0) return;
    m.experts_per_token = read_count(c, {"num_experts_per_tok"}, kMaxExperts, true);
    if (m.experts_per_token > m.experts)
        throw InputError("config.num_experts_per_tok",
                         "is larger than the number of experts (" + std::to_string(m.experts) + ")");
    // Mixtral experts are as wide as the dense MLP; fine-grained MoE sets its own width.
    m.moe_intermediate = read_count(c, {"moe_intermediate_size"}, kMaxIntermediate, false, m.intermediate);
    m.shared_experts = read_count(c, {"n_shared_experts"}, kMaxExperts, false, 0, true);
    m.shared_expert_intermediate = read_count(c, {"shared_expert_intermediate_size"}, kMaxIntermediate, false, 0, true);
    m.dense_layers = count_dense_layers(c, m.model_type, m.layers);
}

void parse_mla(const json& c, ModelConfig& m) {
    m.kv_lora_rank = read_count(c, {"kv_lora_rank"}, kMaxHidden, false);
    if (!m.is_mla()) return;
    m.q_lora_rank = read_count(c, {"q_lora_rank"}, kMaxHidden, false);
    m.qk_nope_head_dim = read_count(c, {"qk_nope_head_dim"}, kMaxHidden, true);
    m.qk_rope_head_dim = read_count(c, {"qk_rope_head_dim"}, kMaxHidden, true);
    m.v_head_dim = read_count(c, {"v_head_dim"}, kMaxHidden, true);
}

double read_fraction(const json& config, std::initializer_list<const char*> keys, double fallback) {
    const char* key = present_key(config, keys);
    return key ? number_field(config.at(key), field_name(key), 0, 1) : fallback;
}

// Norm, MLP shape, activation function and dropout: what decides the tensors
// a block saves for backward.
// - GPT-2 (transformers models/gpt2/configuration_gpt2.py): LayerNorm, plain
//   MLP with activation_function "gelu_new" (NewGELUActivation, a Python
//   composite of pow/tanh/mul), attn_pdrop = resid_pdrop = 0.1 by default.
// - GPT-NeoX: LayerNorm, plain MLP, hidden_act "gelu" (one op),
//   attention_dropout / hidden_dropout (0.0 in Pythia's configs).
// - Llama-like and DeepSeek: RMSNorm, gated MLP; hidden_act "silu", Gemma
//   "gelu_pytorch_tanh" (one op); attention_dropout 0.0 by default.
void parse_block_kind(const json& c, ModelConfig& m) {
    if (m.family == Family::Gpt2 || m.family == Family::GptNeoX) {
        m.norm = NormKind::LayerNorm;
        m.gated_mlp = false;
    }
    const char* act_key = present_key(c, {"hidden_act", "activation_function", "hidden_activation"});
    const std::string act = act_key ? text_field(c.at(act_key), field_name(act_key))
                                    : (m.family == Family::Gpt2 ? "gelu_new" : m.gated_mlp ? "silu" : "gelu");
    m.activation = act == "gelu_new" ? Activation::GeluTanhComposite
                   : (act == "silu" || act == "swish") ? Activation::Silu : Activation::Gelu;
    const double gpt2_default = m.family == Family::Gpt2 ? 0.1 : 0.0;
    m.attention_dropout = read_fraction(c, {"attn_pdrop", "attention_dropout", "attention_probs_dropout_prob"}, gpt2_default);
    m.hidden_dropout = read_fraction(c, {"resid_pdrop", "hidden_dropout", "hidden_dropout_prob"}, gpt2_default);
}

// Multimodal configs (Gemma 3, Llama 4, ...) keep the language model under text_config.
const json& language_model_config(const json& config) {
    auto it = config.find("text_config");
    if (it != config.end() && it->is_object() && !present_key(config, {"hidden_size", "n_embd", "d_model"}))
        return *it;
    return config;
}

}  // namespace

const char* supported_model_types() {
    return "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3_text, phi3, "
           "gpt2, gpt_neox, deepseek_v2, deepseek_v3 (or give num_parameters)";
}

int64_t require_dimension(int64_t value, const char* field, const char* needed_for) {
    if (value <= 0)
        throw InputError(field_name(field), std::string("missing; needed for ") + needed_for +
                                                " (the config only gave num_parameters)");
    return value;
}

void parse_attention_layout(const json& c, ModelConfig& m);  // core/kv_layout.cpp

ModelConfig parse_config(const json& root) {
    if (!root.is_object()) throw InputError("config", "must be a JSON object like a Hugging Face config.json");
    const json& c = language_model_config(root);
    ModelConfig m;
    m.model_type = resolve_model_type(c);
    const Known* known = find_known(m.model_type);

    const bool explicit_count = present_key(c, {"num_parameters"}) != nullptr;
    if (explicit_count) {
        m.explicit_params = static_cast<int64_t>(
            std::llround(number_field(c.at("num_parameters"), "config.num_parameters", 1, kMaxExplicitParams)));
        m.family = Family::Explicit;
    } else if (!known) {
        if (m.model_type.empty())
            throw InputError("config.model_type", std::string("missing; supported: ") + supported_model_types());
        throw InputError("config.model_type", "unknown architecture '" + short_text(m.model_type) +
                                                  "'; supported: " + supported_model_types());
    } else {
        m.family = known->family;
    }
    // Dimensions are required to count parameters; with num_parameters they
    // are optional and only needed for activations / KV cache.
    const bool req = !explicit_count;

    m.hidden = read_count(c, {"hidden_size", "n_embd", "d_model"}, kMaxHidden, req);
    m.layers = read_count(c, {"num_hidden_layers", "n_layer", "num_layers"}, kMaxLayers, req);
    m.heads = read_count(c, {"num_attention_heads", "n_head"}, kMaxHeads, req);
    m.vocab = read_count(c, {"vocab_size"}, kMaxVocab, req);
    m.kv_heads = read_count(c, {"num_key_value_heads"}, kMaxHeads, false, m.heads);
    if (read_bool(c, "multi_query", false)) m.kv_heads = 1;
    const bool plain_mlp = m.family == Family::Gpt2 || m.family == Family::GptNeoX;
    m.intermediate = read_count(c, {"intermediate_size", "n_inner", "ffn_dim"}, kMaxIntermediate,
                                req && !plain_mlp, 4 * m.hidden);
    m.max_positions = read_count(c, {"n_positions", "max_position_embeddings"}, 100'000'000, false);
    if (m.family == Family::Gpt2 && m.max_positions == 0) m.max_positions = 1024;

    if (m.heads > 0) {
        const char* hd_key = present_key(c, {"head_dim"});
        if (hd_key) {
            m.head_dim = read_count(c, {"head_dim"}, kMaxHidden, true);
        } else if (m.hidden > 0) {
            if (m.hidden % m.heads != 0)
                throw InputError("config.num_attention_heads",
                                 "must divide hidden_size (" + std::to_string(m.hidden) + ") when head_dim is not given");
            m.head_dim = m.hidden / m.heads;
        }
        if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
            throw InputError("config.num_key_value_heads",
                             "must divide num_attention_heads (" + std::to_string(m.heads) + "), got " +
                                 std::to_string(m.kv_heads));
    }

    m.tied_embeddings = read_bool(c, "tie_word_embeddings", known ? known->tied_by_default : false);
    m.qkv_bias = m.model_type == "qwen2" || m.model_type == "qwen2_moe" || read_bool(c, "attention_bias", false);
    m.qk_norm = m.model_type == "qwen3" || m.model_type == "qwen3_moe";
    m.norms_per_layer = (m.model_type == "gemma2" || m.model_type == "gemma3_text") ? 4 : 2;

    m.context_length = read_count(c, {"max_position_embeddings", "n_positions", "seq_length"}, 100'000'000, false);
    parse_block_kind(c, m);
    parse_moe(c, m);
    if (m.family == Family::DeepSeek) parse_mla(c, m);
    parse_attention_layout(c, m);  // core/kv_layout.cpp (serving helper)
    return m;
}

ModelConfig parse_config_text(const std::string& text) { return parse_config(parse_json_text(text, "config")); }

}  // namespace vramcalc
