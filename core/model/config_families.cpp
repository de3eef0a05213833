#include "model/config_families.hpp"

#include "model/config_read.hpp"
#include "model/heads.hpp"
#include "model/names.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;
using namespace cfg;

// model_type, the class config.json names, family, architecture. xlm-roberta and
// camembert are RoBERTa's layout (transformers models/xlm_roberta, models/camembert
// copy modeling_roberta.py); mt5 is T5's; mbart and marian are BART's with the
// flags read in bart().
const FamilyType kTypes[] = {
    {"bert", "BertForMaskedLM", Family::Encoder, Arch::Bert},
    {"roberta", "RobertaForMaskedLM", Family::Encoder, Arch::Roberta},
    {"xlm-roberta", "XLMRobertaForMaskedLM", Family::Encoder, Arch::Roberta},
    {"camembert", "CamembertForMaskedLM", Family::Encoder, Arch::Roberta},
    {"electra", "ElectraForPreTraining", Family::Encoder, Arch::Electra},
    {"deberta-v2", "DebertaV2ForMaskedLM", Family::Encoder, Arch::DebertaV2},
    {"distilbert", "DistilBertForMaskedLM", Family::Encoder, Arch::DistilBert},
    {"modernbert", "ModernBertForMaskedLM", Family::Encoder, Arch::ModernBert},
    {"t5", "T5ForConditionalGeneration", Family::EncoderDecoder, Arch::T5},
    {"mt5", "MT5ForConditionalGeneration", Family::EncoderDecoder, Arch::T5},
    {"umt5", "UMT5ForConditionalGeneration", Family::EncoderDecoder, Arch::Umt5},
    {"bart", "BartForConditionalGeneration", Family::EncoderDecoder, Arch::Bart},
    {"mbart", "MBartForConditionalGeneration", Family::EncoderDecoder, Arch::Bart},
    {"marian", "MarianMTModel", Family::EncoderDecoder, Arch::Bart},
    {"whisper", "WhisperForConditionalGeneration", Family::EncoderDecoder, Arch::Whisper},
    {"bloom", "BloomForCausalLM", Family::LlamaLike, Arch::Bloom},
    {"opt", "OPTForCausalLM", Family::LlamaLike, Arch::Opt},
    {"gptj", "GPTJForCausalLM", Family::LlamaLike, Arch::Gptj},
    {"mpt", "MPTForCausalLM", Family::LlamaLike, Arch::Mpt},
    {"stablelm", "StableLmForCausalLM", Family::LlamaLike, Arch::StableLm},
    {"baichuan", "BaichuanForCausalLM", Family::LlamaLike, Arch::Baichuan},
    {"internlm2", "InternLM2ForCausalLM", Family::LlamaLike, Arch::InternLm2},
    {"chatglm", "ChatGLMModel", Family::LlamaLike, Arch::ChatGlm},
    {"qwen", "QWenLMHeadModel", Family::LlamaLike, Arch::Qwen},
    {"exaone", "ExaoneForCausalLM", Family::LlamaLike, Arch::Exaone},
    {"starcoder2", "Starcoder2ForCausalLM", Family::LlamaLike, Arch::Starcoder2},
};

Activation activation_named(const std::string& act) {
    if (act == "gelu_new" || act == "gelu_fast") return Activation::GeluTanhComposite;  // NewGELUActivation: Python ops
    if (act == "silu" || act == "swish" || act == "swiglu") return Activation::Silu;
    if (act == "relu") return Activation::Relu;
    return Activation::Gelu;  // gelu, gelu_pytorch_tanh, quick_gelu...: one op saving its input
}

// BERT, RoBERTa / XLM-R / CamemBERT, ELECTRA, DeBERTa-v2 (transformers models/<family>/
// configuration_*.py keys). Post-LN blocks: attention, add, LayerNorm, MLP, add,
// LayerNorm; every linear and norm with a bias; embeddings LayerNorm.
void bert_like(const json& c, ModelConfig& m) {
    m.hidden = read_count(c, {"hidden_size"}, kMaxHidden, true);
    m.layers = read_count(c, {"num_hidden_layers"}, kMaxLayers, true);
    read_attention_shape(c, m, {"num_attention_heads"}, {}, {});
    m.intermediate = read_count(c, {"intermediate_size"}, kMaxIntermediate, true);
    m.vocab = read_count(c, {"vocab_size"}, kMaxVocab, true);
    m.context_length = read_count(c, {"max_position_embeddings"}, 100'000'000, false, 512);
    m.type_vocab = read_count(c, {"type_vocab_size"}, 1'000'000, false, m.arch == Arch::DebertaV2 ? 0 : 2, true);
    m.embedding_size = read_count(c, {"embedding_size"}, kMaxHidden, false, m.hidden);
    m.activation = activation_named(read_text(c, "hidden_act", "gelu"));
    m.hidden_dropout = read_fraction(c, {"hidden_dropout_prob"}, 0.1);
    m.attention_dropout = read_fraction(c, {"attention_probs_dropout_prob"}, 0.1);
    m.position_rows = m.context_length;
    if (m.arch == Arch::Bert || m.arch == Arch::Roberta) m.pooler = m.hidden;  // BertModel(add_pooling_layer=True)
    if (m.arch == Arch::DebertaV2) {
        // DebertaV2Embeddings: absolute positions only with position_biased_input (default True;
        // DeBERTa-v3 writes false); DebertaV2Encoder.rel_embeddings: 2 × position_buckets rows
        // (else 2 × max_relative_positions, -1 meaning max_position_embeddings), then LayerNorm.
        if (!read_bool(c, "position_biased_input", true)) m.position_rows = 0;
        if (read_bool(c, "relative_attention", false)) {
            auto it = c.find("position_buckets");
            const int64_t buckets = it != c.end() && it->is_number_integer() && it->get<int64_t>() > 0 ? it->get<int64_t>() : 0;
            auto mr = c.find("max_relative_positions");
            const int64_t max_rel = mr != c.end() && mr->is_number_integer() && mr->get<int64_t>() > 0 ? mr->get<int64_t>() : m.context_length;
            m.relative_embeddings = 2 * (buckets > 0 ? buckets : max_rel);
            m.relative_norm = read_text(c, "norm_rel_ebd", "none").find("layer_norm") != std::string::npos;
            // pos_att_type: "p2c|c2p" (v3) or ["p2c", "c2p"] (v2); unshared keys add one projection per kind.
            if (!read_bool(c, "share_att_key", false)) {
                const std::string kinds = c.contains("pos_att_type") ? c["pos_att_type"].dump() : "";
                m.position_projections = (kinds.find("c2p") != std::string::npos) + (kinds.find("p2c") != std::string::npos);
            }
        }
        m.conv_kernel = read_count(c, {"conv_kernel_size"}, 64, false, 0, true);
    }
}

void distilbert(const json& c, ModelConfig& m) {
    // transformers models/distilbert/configuration_distilbert.py: dim, n_layers, n_heads, hidden_dim.
    m.hidden = read_count(c, {"dim", "hidden_size"}, kMaxHidden, true);
    m.layers = read_count(c, {"n_layers", "num_hidden_layers"}, kMaxLayers, true);
    read_attention_shape(c, m, {"n_heads", "num_attention_heads"}, {}, {});
    m.intermediate = read_count(c, {"hidden_dim", "intermediate_size"}, kMaxIntermediate, true);
    m.vocab = read_count(c, {"vocab_size"}, kMaxVocab, true);
    m.context_length = read_count(c, {"max_position_embeddings"}, 100'000'000, false, 512);
    m.position_rows = m.context_length;  // sinusoidal_pos_embds keeps the table too, frozen
    m.activation = activation_named(read_text(c, "activation", "gelu"));
    m.hidden_dropout = read_fraction(c, {"dropout"}, 0.1);
    m.attention_dropout = read_fraction(c, {"attention_dropout"}, 0.1);
}

void modernbert(const json& c, ModelConfig& m) {
    // transformers models/modernbert/modeling_modernbert.py: pre-LN blocks (the first
    // has no attn_norm), fused Wqkv, GeGLU Wi -> 2·I, RoPE (no position table), norms
    // and linears without biases by default, local attention in all but every
    // global_attn_every_n_layers-th layer.
    m.hidden = read_count(c, {"hidden_size"}, kMaxHidden, true);
    m.layers = read_count(c, {"num_hidden_layers"}, kMaxLayers, true);
    read_attention_shape(c, m, {"num_attention_heads"}, {}, {});
    m.intermediate = read_count(c, {"intermediate_size"}, kMaxIntermediate, true);
    m.vocab = read_count(c, {"vocab_size"}, kMaxVocab, true);
    m.context_length = read_count(c, {"max_position_embeddings"}, 100'000'000, false, 8192);
    m.activation = activation_named(read_text(c, "hidden_activation", "gelu"));
    m.gated_mlp = m.fused_qkv = m.fused_gate_up = true;
    m.norm_bias = read_bool(c, "norm_bias", false);
    m.qkv_bias = m.attn_output_bias = read_bool(c, "attention_bias", false);
    m.mlp_bias = read_bool(c, "mlp_bias", false);
    m.attention_dropout = read_fraction(c, {"attention_dropout"}, 0);
    m.hidden_dropout = read_fraction(c, {"mlp_dropout"}, 0);
    m.embedding_norm = true;
    const int64_t every = read_count(c, {"global_attn_every_n_layers"}, kMaxLayers, false, 3);
    const int64_t window = read_count(c, {"local_attention"}, 100'000'000, false, 128);
    m.layer_kinds.assign(static_cast<size_t>(m.layers), LayerKind{});
    for (int64_t i = 0; i < m.layers; ++i)
        if (i % every != 0) m.layer_kinds[static_cast<size_t>(i)] = {Mixer::SlidingAttention, window, false};
}

// T5 / mT5 (models/t5/modeling_t5.py) and UMT5 (models/umt5): pre-norm blocks of
// T5LayerNorm (RMS, no bias), q/k/v/o without biases (inner width num_heads·d_kv),
// DenseReluDense (relu) or gated (wi_0, wi_1: "gated-gelu"), bucketed relative
// position bias in the first self-attention of each stack (UMT5: every one).
void t5(const json& c, ModelConfig& m) {
    m.hidden = read_count(c, {"d_model"}, kMaxHidden, true);
    m.encoder_layers = read_count(c, {"num_layers"}, kMaxLayers, true);
    m.layers = read_count(c, {"num_decoder_layers"}, kMaxLayers, false, m.encoder_layers);
    m.heads = m.kv_heads = read_count(c, {"num_heads"}, kMaxHeads, true);
    m.head_dim = read_count(c, {"d_kv"}, kMaxHidden, false, m.hidden / m.heads);
    m.intermediate = m.encoder_intermediate = read_count(c, {"d_ff"}, kMaxIntermediate, true);
    m.vocab = read_count(c, {"vocab_size"}, kMaxVocab, true);
    m.context_length = read_count(c, {"n_positions"}, 100'000'000, false, 0);
    const std::string ff = read_text(c, "feed_forward_proj", "relu");
    m.gated_mlp = ff.rfind("gated-", 0) == 0;
    // T5Config: "gated-gelu" is dense_act_fn "gelu_new" (transformers configuration_t5.py).
    const std::string act = m.gated_mlp ? ff.substr(6) : ff;
    m.activation = act == "gelu" ? Activation::GeluTanhComposite : activation_named(act);
    m.hidden_dropout = m.attention_dropout = m.activation_dropout = read_fraction(c, {"dropout_rate"}, 0.1);
    m.relative_buckets = read_count(c, {"relative_attention_num_buckets"}, 100'000, false, 32);
    m.relative_bias_every_layer = m.arch == Arch::Umt5;
}

// BART, mBART, Marian (models/bart, models/mbart, models/marian): learned positions
// with 2 extra rows (BartLearnedPositionalEmbedding offset 2; Marian: sinusoidal rows,
// no offset), q/k/v/out and fc1/fc2 with biases, LayerNorms with bias; BART post-LN
// with layernorm_embedding, mBART pre-LN with layernorm_embedding and a final norm
// per stack, Marian post-LN without either.
void bart(const json& c, ModelConfig& m) {
    const bool mbart = m.model_type == "mbart", marian = m.model_type == "marian";
    m.hidden = read_count(c, {"d_model"}, kMaxHidden, true);
    m.encoder_layers = read_count(c, {"encoder_layers"}, kMaxLayers, true);
    m.layers = read_count(c, {"decoder_layers"}, kMaxLayers, true);
    read_attention_shape(c, m, {"decoder_attention_heads", "encoder_attention_heads"}, {}, {});
    if (read_count(c, {"encoder_attention_heads"}, kMaxHeads, false, m.heads) != m.heads)
        throw InputError("config.encoder_attention_heads", "differs from decoder_attention_heads; not modelled");
    m.intermediate = read_count(c, {"decoder_ffn_dim"}, kMaxIntermediate, true);
    m.encoder_intermediate = read_count(c, {"encoder_ffn_dim"}, kMaxIntermediate, false, m.intermediate);
    m.vocab = read_count(c, {"vocab_size"}, kMaxVocab, true);
    m.context_length = read_count(c, {"max_position_embeddings"}, 100'000'000, false, 1024);
    m.position_rows = m.context_length + (marian ? 0 : 2);
    m.activation = activation_named(read_text(c, "activation_function", "gelu"));
    m.hidden_dropout = read_fraction(c, {"dropout"}, 0.1);
    m.attention_dropout = read_fraction(c, {"attention_dropout"}, 0);
    m.activation_dropout = read_fraction(c, {"activation_dropout"}, 0);
    m.post_norm = !(mbart || read_bool(c, "normalize_before", false));
    m.embedding_norm = !marian;
    m.final_norm = mbart || read_bool(c, "add_final_layer_norm", false);
    if (marian && !read_bool(c, "share_encoder_decoder_embeddings", true))
        throw InputError("config.share_encoder_decoder_embeddings", "false (separate decoder vocabulary) is not modelled");
}

// Whisper (models/whisper/modeling_whisper.py): a conv stem over num_mel_bins
// channels (conv1 k3, conv2 k3 stride 2) into max_source_positions frames with
// fixed positions, pre-LN blocks (k_proj without bias), a learned decoder position
// table of max_target_positions rows, proj_out tied to the decoder embeddings.
void whisper(const json& c, ModelConfig& m) {
    m.hidden = read_count(c, {"d_model"}, kMaxHidden, true);
    m.encoder_layers = read_count(c, {"encoder_layers"}, kMaxLayers, true);
    m.layers = read_count(c, {"decoder_layers"}, kMaxLayers, true);
    read_attention_shape(c, m, {"decoder_attention_heads", "encoder_attention_heads"}, {}, {});
    m.intermediate = read_count(c, {"decoder_ffn_dim"}, kMaxIntermediate, true);
    m.encoder_intermediate = read_count(c, {"encoder_ffn_dim"}, kMaxIntermediate, false, m.intermediate);
    m.vocab = read_count(c, {"vocab_size"}, kMaxVocab, true);
    m.mel_bins = read_count(c, {"num_mel_bins"}, 10'000, false, 80);
    m.encoder_positions = read_count(c, {"max_source_positions"}, 1'000'000, false, 1500);
    m.context_length = m.position_rows = read_count(c, {"max_target_positions"}, 1'000'000, false, 448);
    m.activation = activation_named(read_text(c, "activation_function", "gelu"));
    m.hidden_dropout = read_fraction(c, {"dropout"}, 0);
    m.attention_dropout = read_fraction(c, {"attention_dropout"}, 0);
    m.activation_dropout = read_fraction(c, {"activation_dropout"}, 0);
}

}  // namespace

void parse_other_decoder(const json& c, ModelConfig& m);  // config_decoders.cpp

void read_attention_shape(const json& c, ModelConfig& m, std::initializer_list<const char*> heads,
                          std::initializer_list<const char*> kv, std::initializer_list<const char*> head_dim) {
    m.heads = read_count(c, heads, kMaxHeads, true);
    m.kv_heads = read_count(c, kv, kMaxHeads, false, m.heads);
    if (present_key(c, head_dim)) {
        m.head_dim = read_count(c, head_dim, kMaxHidden, true);
    } else {
        if (m.hidden % m.heads != 0)
            throw InputError(field_name(*heads.begin()), "must divide the hidden size (" + std::to_string(m.hidden) + ")");
        m.head_dim = m.hidden / m.heads;
    }
    if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
        throw InputError(field_name(kv.size() > 0 ? *kv.begin() : "num_key_value_heads"),
                         "must divide the attention heads (" + std::to_string(m.heads) + "), got " + std::to_string(m.kv_heads));
}

const FamilyType* find_family_type(const std::string& name) {
    for (const auto& t : kTypes)
        if (name == t.model_type || name == t.architecture) return &t;
    if (name == "BaiChuanForCausalLM") return find_family_type("baichuan");  // Baichuan 1 (7B)
    return nullptr;
}

void parse_family(const json& c, ModelConfig& m) {
    m.names = names_of(m.arch);
    m.norm = NormKind::LayerNorm;
    m.norm_bias = true;
    m.gated_mlp = false;
    m.softmax_fp32 = false;
    m.tied_embeddings = true;
    m.qkv_bias = m.attn_output_bias = m.mlp_bias = true;
    m.activation = Activation::Gelu;
    switch (m.arch) {
        case Arch::Bert: case Arch::Roberta: case Arch::Electra: case Arch::DebertaV2:
            m.post_norm = m.embedding_norm = true;
            m.final_norm = false;
            bert_like(c, m);
            break;
        case Arch::DistilBert:
            m.post_norm = m.embedding_norm = true;
            m.final_norm = false;
            distilbert(c, m);
            break;
        case Arch::ModernBert: modernbert(c, m); break;
        case Arch::T5: case Arch::Umt5:
            m.norm = NormKind::RMSNorm;
            m.norm_bias = m.qkv_bias = m.attn_output_bias = m.mlp_bias = false;
            m.softmax_fp32 = true;  // T5Attention: softmax(scores.float()).type_as(scores)
            m.tied_embeddings = m.arch == Arch::T5 && m.model_type == "t5";  // T5Config True, MT5Config/UMT5Config False
            t5(c, m);
            break;
        case Arch::Bart: bart(c, m); break;
        case Arch::Whisper: whisper(c, m); break;
        default: parse_other_decoder(c, m); break;
    }
    m.tied_embeddings = read_bool(c, "tie_word_embeddings", m.tied_embeddings);
    if (static_cast<int64_t>(m.layer_kinds.size()) != m.layers) m.layer_kinds.assign(static_cast<size_t>(m.layers), LayerKind{});
    if (m.context_length <= 0) m.context_length = read_count(c, {"max_position_embeddings"}, 100'000'000, false, 0);
    m.head = head_from_architectures(c, m);
    m.num_labels = labels_of(c);
}

const json* sentence_transformers_config(const json& root, std::vector<int64_t>& dense) {
    const std::string transformer = "sentence_transformers.models.Transformer";
    auto module_type = [](const json& e) { return e.is_object() && e.contains("type") && e["type"].is_string() ? e["type"].get<std::string>() : ""; };
    auto path_of = [](const json& e) { return e.contains("path") && e["path"].is_string() ? e["path"].get<std::string>() : ""; };
    auto file_of = [](const std::string& path) { return path.empty() ? std::string("config.json") : path + "/config.json"; };
    // A list is modules.json only when it names sentence-transformers modules.
    bool listed = false;
    if (root.is_array())
        for (const json& e : root) listed = listed || module_type(e).rfind("sentence_transformers.", 0) == 0;
    const json* modules = listed ? &root : nullptr;
    if (root.is_object() && root.contains("modules.json")) modules = &root["modules.json"];
    if (!modules) return nullptr;
    if (!modules->is_array()) throw InputError("config.modules.json", "must be the list sentence-transformers writes");
    const json* transformer_entry = nullptr;
    for (const json& e : *modules)
        if (module_type(e) == transformer) transformer_entry = &e;
    if (!transformer_entry)
        throw InputError("config.modules.json", "names no sentence_transformers.models.Transformer module");
    const std::string file = file_of(path_of(*transformer_entry));
    if (root.is_array())
        throw InputError("config", "is sentence-transformers' modules.json, which names the modules but not their sizes: "
                                   "give the Transformer module's " + file + ", or both as {\"modules.json\": [...], \"" +
                                   file + "\": {...}}");
    auto it = root.find(file);
    if (it == root.end() || !it->is_object())
        throw InputError("config." + file, "missing: the Transformer module of modules.json reads it");
    // sentence_transformers/models/Dense.py: Linear(in_features, out_features, bias) read from <path>/config.json.
    for (const json& e : *modules) {
        if (module_type(e) != "sentence_transformers.models.Dense") continue;
        const std::string dense_file = file_of(path_of(e));
        auto d = root.find(dense_file);
        if (d == root.end() || !d->is_object())
            throw InputError("config." + dense_file, "missing: a Dense module's sizes are in it (in_features, out_features)");
        dense.push_back(read_count(*d, {"in_features"}, kMaxHidden, true));
        dense.push_back(read_count(*d, {"out_features"}, kMaxHidden, true));
        dense.push_back(read_bool(*d, "bias", true) ? 1 : 0);
    }
    return &*it;
}

}  // namespace vramcalc
