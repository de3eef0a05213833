#include "model/config.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "model/config_arch.hpp"
#include "model/config_families.hpp"
#include "model/heads.hpp"
#include "model/config_read.hpp"
#include "text/errors.hpp"
#include "text/json_text.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;
using namespace cfg;

constexpr double kMaxExplicitParams = 1e15;

struct Known {
    const char* model_type;
    const char* architecture;
    Family family;
    bool tied_by_default;
};

// tied_by_default: the PretrainedConfig default of tie_word_embeddings for
// the family (transformers models/<family>/configuration_<family>.py).
const Known kKnown[] = {
    {"llama", "LlamaForCausalLM", Family::LlamaLike, false},
    {"mistral", "MistralForCausalLM", Family::LlamaLike, false},
    {"mixtral", "MixtralForCausalLM", Family::LlamaLike, false},
    {"qwen2", "Qwen2ForCausalLM", Family::LlamaLike, false},
    {"qwen2_moe", "Qwen2MoeForCausalLM", Family::LlamaLike, false},
    {"qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration", Family::LlamaLike, false},
    {"qwen2_5_vl_text", "Qwen2_5_VLTextModel", Family::LlamaLike, false},  // newer configs nest it in text_config
    {"qwen3", "Qwen3ForCausalLM", Family::LlamaLike, false},
    {"qwen3_moe", "Qwen3MoeForCausalLM", Family::LlamaLike, false},
    {"qwen3_next", "Qwen3NextForCausalLM", Family::LlamaLike, false},
    {"gemma", "GemmaForCausalLM", Family::LlamaLike, true},
    {"gemma2", "Gemma2ForCausalLM", Family::LlamaLike, true},
    {"gemma3_text", "Gemma3ForCausalLM", Family::LlamaLike, true},
    {"phi3", "Phi3ForCausalLM", Family::LlamaLike, false},
    {"phimoe", "PhiMoEForCausalLM", Family::LlamaLike, false},
    {"llama4_text", "Llama4ForCausalLM", Family::LlamaLike, false},
    {"gpt_oss", "GptOssForCausalLM", Family::LlamaLike, false},
    {"olmo2", "Olmo2ForCausalLM", Family::LlamaLike, false},
    {"cohere", "CohereForCausalLM", Family::LlamaLike, true},
    {"cohere2", "Cohere2ForCausalLM", Family::LlamaLike, true},
    {"granite", "GraniteForCausalLM", Family::LlamaLike, true},
    {"granitemoe", "GraniteMoeForCausalLM", Family::LlamaLike, true},
    {"granitemoehybrid", "GraniteMoeHybridForCausalLM", Family::LlamaLike, true},
    {"glm4_moe", "Glm4MoeForCausalLM", Family::LlamaLike, false},
    {"jamba", "JambaForCausalLM", Family::LlamaLike, false},
    {"falcon_h1", "FalconH1ForCausalLM", Family::LlamaLike, false},
    {"mllama_text_model", "MllamaForCausalLM", Family::LlamaLike, false},  // Llama 3.2 Vision's language model
    {"ernie4_5_moe", "Ernie4_5_MoeForCausalLM", Family::LlamaLike, true},     // Ernie4_5_MoeConfig: tied by default
    {"hunyuan_v1_moe", "HunYuanMoEV1ForCausalLM", Family::LlamaLike, false},
    {"minimax", "MiniMaxForCausalLM", Family::LlamaLike, false},
    // 2025-26 releases (core/model/config_recent.cpp reads their own keys).
    {"smollm3", "SmolLM3ForCausalLM", Family::LlamaLike, true},               // SmolLM3Config: tied by default
    {"seed_oss", "SeedOssForCausalLM", Family::LlamaLike, false},
    {"olmo3", "Olmo3ForCausalLM", Family::LlamaLike, false},
    {"minimax_m2", "MiniMaxM2ForCausalLM", Family::LlamaLike, false},
    {"qwen3_vl_text", "Qwen3VLForConditionalGeneration", Family::LlamaLike, false},   // Qwen3-VL's text_config
    {"qwen3_vl_moe_text", "Qwen3VLMoeForConditionalGeneration", Family::LlamaLike, false},
    {"qwen3_5_text", "Qwen3_5ForConditionalGeneration", Family::LlamaLike, false},    // Qwen3.5's text_config
    {"qwen3_5_moe_text", "Qwen3_5MoeForConditionalGeneration", Family::LlamaLike, false},
    {"ministral3", "Ministral3ForCausalLM", Family::LlamaLike, false},       // Ministral 3's text_config
    {"glm4_moe_lite", "Glm4MoeLiteForCausalLM", Family::DeepSeek, false},   // GLM-4.7-Flash: MLA + MoE
    {"deepseek_v32", "DeepseekV32ForCausalLM", Family::DeepSeek, false},    // V3 + the DSA lightning indexer
    {"glm_moe_dsa", "GlmMoeDsaForCausalLM", Family::DeepSeek, false},       // GLM-5: MLA + DSA indexer + MoE
    {"gpt2", "GPT2LMHeadModel", Family::Gpt2, true},
    {"gpt_bigcode", "GPTBigCodeForCausalLM", Family::Gpt2, true},
    {"gpt_neox", "GPTNeoXForCausalLM", Family::GptNeoX, false},
    {"falcon", "FalconForCausalLM", Family::Falcon, true},
    {"deepseek_v2", "DeepseekV2ForCausalLM", Family::DeepSeek, false},
    {"deepseek_v3", "DeepseekV3ForCausalLM", Family::DeepSeek, false},
    {"kimi_k2", "KimiK2ForCausalLM", Family::DeepSeek, false},
    {"mamba", "MambaForCausalLM", Family::Mamba, true},
    {"mamba2", "Mamba2ForCausalLM", Family::Mamba, true},
};

const Known* find_known(const std::string& model_type) {
    // Falcon's first checkpoints name the architecture RefinedWeb(Model).
    if (model_type == "RefinedWeb" || model_type == "RefinedWebModel") return find_known("falcon");
    for (const auto& k : kKnown)
        if (model_type == k.model_type) return &k;
    return nullptr;
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
        if (const FamilyType* t = find_family_type(name)) return t->model_type;
        return name;
    }
    return "";
}

bool starts_with_any(const std::string& s, std::initializer_list<const char*> prefixes) {
    for (const char* p : prefixes)
        if (s.rfind(p, 0) == 0) return true;
    return false;
}

// Qwen3.5-MoE's text_config has no intermediate_size: every layer is a mixture of experts
// (transformers Qwen3_5MoeTextConfig keeps no dense width), so none is needed.
bool moe_only(const json& c, const ModelConfig& m) {
    return m.model_type == "qwen3_5_moe_text" && present_key(c, {"moe_intermediate_size"}) != nullptr;
}

void parse_mla(const json& c, ModelConfig& m) {
    m.kv_lora_rank = read_count(c, {"kv_lora_rank"}, kMaxHidden, false);
    if (!m.is_mla()) return;
    m.q_lora_rank = read_count(c, {"q_lora_rank"}, kMaxHidden, false);
    m.qk_nope_head_dim = read_count(c, {"qk_nope_head_dim"}, kMaxHidden, true);
    m.qk_rope_head_dim = read_count(c, {"qk_rope_head_dim"}, kMaxHidden, true);
    m.v_head_dim = read_count(c, {"v_head_dim"}, kMaxHidden, true);
}

// Norm, MLP shape, activation function and dropout: what decides the tensors
// a block saves for backward.
// - GPT-2 (transformers models/gpt2/configuration_gpt2.py): LayerNorm, plain
//   MLP with activation_function "gelu_new" (NewGELUActivation, a Python
//   composite of pow/tanh/mul), attn_pdrop = resid_pdrop = 0.1 by default.
//   GPT-BigCode (configuration_gpt_bigcode.py) shares the keys and the 0.1
//   defaults; StarCoder/OctoCoder write "gelu_pytorch_tanh" (one op).
// - GPT-NeoX, Falcon: LayerNorm, plain MLP, hidden_act "gelu" (one op),
//   attention_dropout / hidden_dropout (0.0 in Pythia's and Falcon's configs).
// - Llama-like and DeepSeek: RMSNorm, gated MLP; hidden_act "silu", Gemma
//   "gelu_pytorch_tanh" (one op); attention_dropout 0.0 by default.
//   Cohere and PhiMoE use LayerNorm (set in apply_architecture).
// - Mamba stacks: RMSNorm, no MLP (gated_mlp false, intermediate 0).
void parse_block_kind(const json& c, ModelConfig& m) {
    if (m.family == Family::Gpt2 || m.family == Family::GptNeoX || m.family == Family::Falcon) {
        m.norm = NormKind::LayerNorm;
        m.gated_mlp = false;
    }
    if (m.family == Family::Mamba) m.gated_mlp = false;
    const char* act_key = present_key(c, {"hidden_act", "activation_function", "hidden_activation"});
    const std::string act = act_key ? text_field(c.at(act_key), field_name(act_key))
                                    : (m.family == Family::Gpt2 ? "gelu_new" : m.gated_mlp ? "silu" : "gelu");
    m.activation = act == "gelu_new" ? Activation::GeluTanhComposite
                   : (act == "silu" || act == "swish") ? Activation::Silu : Activation::Gelu;
    const double gpt2_default = m.family == Family::Gpt2 ? 0.1 : 0.0;
    m.attention_dropout = read_fraction(c, {"attn_pdrop", "attention_dropout", "attention_probs_dropout_prob"}, gpt2_default);
    m.hidden_dropout = read_fraction(c, {"resid_pdrop", "hidden_dropout", "hidden_dropout_prob"}, gpt2_default);
}

// Multimodal configs (Gemma 3, Llama 4, LLaVA, ...) keep the language model under text_config.
const json& language_model_config(const json& config) {
    auto it = config.find("text_config");
    if (it != config.end() && it->is_object() && !present_key(config, {"hidden_size", "n_embd", "d_model"}))
        return *it;
    return config;
}

// An unknown model_type is estimated as a Llama-style decoder when the
// generic keys are there; otherwise the error names every missing key.
void require_generic_keys(const json& c, const std::string& model_type) {
    std::string missing;
    const std::initializer_list<const char*> groups[] = {
        {"hidden_size", "n_embd", "d_model"}, {"num_hidden_layers", "n_layer", "num_layers"},
        {"num_attention_heads", "n_head"}, {"intermediate_size", "n_inner", "ffn_dim"}, {"vocab_size"}};
    for (const auto& keys : groups)
        if (!present_key(c, keys)) missing += (missing.empty() ? "" : ", ") + std::string(*keys.begin());
    if (missing.empty()) return;
    if (model_type.empty())
        throw InputError("config.model_type", std::string("missing; supported: ") + supported_model_types());
    // No supported-types list here: the message stays one short line (the list is in --help and the README).
    throw InputError("config.model_type", "unknown architecture '" + short_text(model_type) + "' without " + missing +
                                              " (needed to estimate it as a Llama-style decoder; or give num_parameters)");
}

}  // namespace

const char* supported_model_types() {
    return "llama, mistral, mixtral, qwen2, qwen2_moe, qwen2_5_vl, qwen3, qwen3_moe, qwen3_next, gemma, gemma2, "
           "gemma3 (gemma3_text), llama4 (llama4_text), llava, phi3, phimoe, gpt_oss, olmo2, olmo3, smollm3, seed_oss, "
           "minimax_m2, qwen3_vl, qwen3_vl_moe, qwen3_5, qwen3_5_moe, mistral3 (ministral3), cohere, cohere2, granite, "
           "granitemoe, granitemoehybrid, glm4_moe, glm4_moe_lite, glm_moe_dsa, jamba, falcon_h1, ernie4_5_moe, hunyuan_v1_moe, mllama, minimax, gpt2, gpt_bigcode, "
           "gpt_neox, falcon, deepseek_v2, deepseek_v3, deepseek_v32, kimi_k2, mamba, mamba2, bloom, opt, gptj, mpt, stablelm, baichuan, "
           "internlm2, chatglm, qwen, exaone, starcoder2; encoders bert, roberta, xlm-roberta, camembert, electra, deberta-v2, "
           "distilbert, modernbert (and sentence-transformers' modules.json with one of them); encoder-decoders t5, mt5, umt5, "
           "bart, mbart, marian, whisper (or give num_parameters)";
}

int64_t require_dimension(int64_t value, const char* field, const char* needed_for) {
    if (value <= 0)
        throw InputError(field_name(field), std::string("missing; needed for ") + needed_for +
                                                " (the config only gave num_parameters)");
    return value;
}

void parse_attention_layout(const json& c, ModelConfig& m);  // core/kv_layout.cpp
int64_t ModelConfig::attention_layers() const {
    if (layer_kinds.empty()) return family == Family::Mamba ? 0 : layers;
    if (counted_kinds == layer_kinds.size()) return attention_count;
    int64_t n = 0;
    for (const auto& k : layer_kinds)
        n += (k.mixer == Mixer::LinearAttention || k.mixer == Mixer::Mamba) ? 0 : 1;
    return n;
}

int64_t ModelConfig::recurrent_layers() const {
    if (parallel_hybrid) return layers;  // Falcon-H1: a Mamba-2 mixer beside the attention of every layer
    if (layer_kinds.empty()) return family == Family::Mamba ? layers : 0;
    return layers - attention_layers();
}

// The RoPE tables vLLM precomputes when it builds the model (layers/rotary_embedding get_rope: one
// module per distinct RoPE, shared by the layers). RotaryEmbedding registers cos_sin_cache
// [max_position, rotary_dim] in the model dtype; LinearScaling-, DynamicNTKScaling- and
// YaRNScalingRotaryEmbedding._compute_cos_sin_cache size it max_position × factor ("max_len =
// self.max_position_embeddings * scaling_factor"); Llama 3's and the default keep max_position.
// Gemma 3's sliding layers use a second, unscaled RoPE (gemma3.py Gemma3Attention: base
// rope_local_base_freq, rope_type default). rotary_dim: head_dim × partial_rotary_factor, MLA's
// qk_rope_head_dim. Models with learned or ALiBi positions, encoders and encoder-decoders: none.
static void parse_rope(const json& c, ModelConfig& m) {
    const bool rotary = (m.family == Family::LlamaLike || m.family == Family::GptNeoX || m.family == Family::DeepSeek ||
                         m.family == Family::Falcon) && !m.alibi && m.position_rows == 0 && m.max_positions == 0;
    if (!rotary || m.context_length <= 0 || m.heads <= 0) return;
    double factor = 1;
    for (const char* key : {"rope_scaling", "rope_parameters"}) {
        auto it = c.find(key);
        if (it == c.end() || !it->is_object()) continue;
        const std::string type = cfg::read_text(*it, it->contains("rope_type") ? "rope_type" : "type", "default");
        if (type == "linear" || type == "dynamic" || type == "yarn")
            factor = cfg::present_key(*it, {"factor"}) ? number_field(it->at("factor"), cfg::field_name(key), 1, 1e4) : 1;
        break;
    }
    const double partial = cfg::read_fraction(c, {"partial_rotary_factor"}, 1);
    m.rotary_dim = m.is_mla() ? m.qk_rope_head_dim : static_cast<int64_t>(static_cast<double>(m.head_dim) * partial);
    m.rope_rows = static_cast<int64_t>(static_cast<double>(m.context_length) * factor);
    if (m.model_type == "gemma3_text" && m.kv_kind_count(ModelConfig::KvKind::Sliding) > 0) m.rope_rows_local = m.context_length;
}

ModelConfig parse_config(const json& given) {
    // sentence-transformers: modules.json beside the Transformer module's config.json.
    std::vector<int64_t> dense_modules;
    const json* st = sentence_transformers_config(given, dense_modules);
    const json& root = st ? *st : given;
    if (!root.is_object()) throw InputError("config", "must be a JSON object like a Hugging Face config.json");
    const json& c = language_model_config(root);
    if (!c.is_object()) throw InputError("config.text_config", "must be a JSON object");
    ModelConfig m;
    m.model_type = resolve_model_type(c);
    m.dense_modules = dense_modules;
    const Known* known = find_known(m.model_type);

    const bool explicit_count = present_key(c, {"num_parameters"}) != nullptr;
    if (const FamilyType* t = explicit_count ? nullptr : find_family_type(m.model_type)) {
        // Issue 24's architectures read their own keys (d_model, n_heads, encoder_layers, ...).
        m.model_type = t->model_type;
        m.family = t->family;
        m.arch = t->arch;
        parse_family(c, m);
        parse_attention_layout(c, m);  // core/kv_layout.cpp: StarCoder2's sliding window
        apply_head(m, m.head, "config.architectures");
        parse_quantization(root, m);
        return m;
    }
    if (explicit_count) {
        m.explicit_params = static_cast<int64_t>(
            std::llround(number_field(c.at("num_parameters"), "config.num_parameters", 1, kMaxExplicitParams)));
        m.family = Family::Explicit;
    } else if (!known) {
        require_generic_keys(c, m.model_type);
        m.family = Family::LlamaLike;
        m.approximate = true;
        m.approximate_note = "approximate: unknown architecture '" + short_text(m.model_type) +
                             "', counted as a Llama-style decoder (gated MLP, RMSNorm) from its generic keys";
    } else {
        m.family = known->family;
        if (known->model_type != m.model_type) m.model_type = known->model_type;
    }
    // Dimensions are required to count parameters; with num_parameters they
    // are optional and only needed for activations / KV cache. Attention-free
    // Mamba stacks have no heads.
    const bool req = !explicit_count;
    const bool ssm = m.family == Family::Mamba;

    m.hidden = read_count(c, {"hidden_size", "n_embd", "d_model"}, kMaxHidden, req);
    m.layers = read_count(c, {"num_hidden_layers", "n_layer", "num_layers"}, kMaxLayers, req);
    m.heads = ssm ? 0 : read_count(c, {"num_attention_heads", "n_head"}, kMaxHeads, req);
    m.vocab = read_count(c, {"vocab_size"}, kMaxVocab, req);
    m.kv_heads = read_count(c, {"num_key_value_heads", "num_kv_heads", "n_head_kv"}, kMaxHeads, false, m.heads);
    if (read_bool(c, "multi_query", false)) m.kv_heads = 1;
    const bool plain_mlp = m.family == Family::Gpt2 || m.family == Family::GptNeoX || m.family == Family::Falcon;
    m.intermediate = ssm ? 0
                         : read_count(c, {"intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim"},
                                      kMaxIntermediate, req && !plain_mlp && !moe_only(c, m), 4 * m.hidden);
    m.max_positions = m.family == Family::Gpt2 ? read_count(c, {"n_positions", "max_position_embeddings"},
                                                            100'000'000, false, 1024)
                                               : 0;

    if (m.heads > 0) {
        const char* hd_key = present_key(c, {"head_dim"});
        if (hd_key) {
            m.head_dim = read_count(c, {"head_dim"}, kMaxHidden, true);
        } else if (m.family == Family::DeepSeek && present_key(c, {"kv_lora_rank"}) && present_key(c, {"qk_nope_head_dim"})) {
            // MLA heads are qk_nope_head_dim + qk_rope_head_dim wide, whatever hidden / heads is
            // (GLM-4.7-Flash: 2048 / 20 heads of 192 + 64).
            m.head_dim = read_count(c, {"qk_nope_head_dim"}, kMaxHidden, true) +
                         read_count(c, {"qk_rope_head_dim"}, kMaxHidden, false, 0, true);
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

    // Multimodal wrappers (Qwen3-VL, Qwen3.5) write tie_word_embeddings at the top level, beside
    // text_config: transformers ties the language model's head by the top-level config.
    const bool tied_default = known ? known->tied_by_default : false;
    m.tied_embeddings = read_bool(c, "tie_word_embeddings", &c != &root ? read_bool(root, "tie_word_embeddings", tied_default)
                                                                        : tied_default);
    m.qkv_bias = m.model_type == "qwen2" || m.model_type == "qwen2_moe" || m.model_type == "qwen2_5_vl" ||
                 m.model_type == "qwen2_5_vl_text" ||
                 read_bool(c, "attention_bias", false);
    m.qk_norm = m.model_type == "qwen3" || m.model_type == "qwen3_moe" || m.model_type == "qwen3_next" ||
                m.model_type == "gemma3_text" || m.model_type == "olmo2" || m.model_type == "olmo3" ||
                starts_with_any(m.model_type, {"qwen3_vl", "qwen3_5"});
    m.norms_per_layer = (m.model_type == "gemma2" || m.model_type == "gemma3_text") ? 4 : 2;

    m.context_length = read_count(c, {"max_position_embeddings", "n_positions", "seq_length"}, 100'000'000, false);
    // Multi-token-prediction layers shipped beside the model (DeepSeek-V3 / GLM-4.5 num_nextn_predict_layers,
    // Qwen3-Next mtp_num_hidden_layers): served as speculative decoding (core/serving/speculative.cpp).
    m.nextn_layers = read_count(c, {"num_nextn_predict_layers", "mtp_num_hidden_layers"}, 64, false, 0, true);
    parse_block_kind(c, m);
    if (m.family != Family::Explicit) {
        apply_architecture(c, m);
        apply_recent_architecture(c, m);  // core/model/config_recent.cpp
        parse_moe(c, m);
        parse_layer_kinds(c, m);
        parse_vision(root, m);
    }
    if (m.family == Family::DeepSeek) parse_mla(c, m);
    m.softmax_fp32 = m.norm == NormKind::RMSNorm;  // HF eager_attention_forward upcasts; GPT-2/NeoX/Falcon keep the dtype
    if (m.family != Family::Explicit) {
        m.head = head_from_architectures(c, m);
        m.num_labels = labels_of(c);
    }
    parse_attention_layout(c, m);  // core/kv_layout.cpp (serving helper)
    parse_rope(c, m);
    parse_quantization(root, m);
    m.count_layer_kinds();
    return m;
}

ModelConfig parse_config_text(const std::string& text) { return parse_config(parse_json_text(text, "config")); }

}  // namespace vramcalc
