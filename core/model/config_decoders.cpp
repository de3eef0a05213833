// config.json keys of the remaining decoder families of issue 24: BLOOM, OPT,
// GPT-J, MPT, StableLM, Baichuan, InternLM2, ChatGLM, Qwen (v1), EXAONE 3,
// StarCoder2. Each is counted with the Llama-style decoder layout
// (core/model/params.cpp decoder) and its own module names and flags.
#include <nlohmann/json.hpp>

#include "model/config.hpp"
#include "model/config_families.hpp"
#include "model/config_read.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;
using namespace cfg;

// The Llama-style decoders among them: RMSNorm, SwiGLU, no biases, untied head.
void llama_style(ModelConfig& m) {
    m.norm = NormKind::RMSNorm;
    m.norm_bias = m.qkv_bias = m.attn_output_bias = m.mlp_bias = false;
    m.gated_mlp = true;
    m.activation = Activation::Silu;
    m.softmax_fp32 = true;
    m.tied_embeddings = false;
}

}  // namespace

void parse_other_decoder(const json& c, ModelConfig& m) {
    const Arch a = m.arch;
    m.final_norm = true;
    m.context_length = read_count(c, {"max_position_embeddings", "n_positions", "max_seq_len", "seq_length"}, 100'000'000, false);
    if (a == Arch::Bloom) {
        // transformers models/bloom: fused query_key_value and dense with biases, MLP of 4·hidden
        // (BloomMLP), word_embeddings_layernorm, ALiBi, tied head; softmax in fp32.
        m.hidden = read_count(c, {"hidden_size", "n_embed"}, kMaxHidden, true);
        m.layers = read_count(c, {"n_layer", "num_hidden_layers"}, kMaxLayers, true);
        read_attention_shape(c, m, {"n_head", "num_attention_heads"}, {}, {});
        m.intermediate = 4 * m.hidden;
        m.fused_qkv = m.embedding_norm = m.alibi = m.softmax_fp32 = true;
        m.activation = Activation::Gelu;  // training: GeLUFunction saves its input only
        m.hidden_dropout = read_fraction(c, {"hidden_dropout"}, 0);
        m.attention_dropout = read_fraction(c, {"attention_dropout"}, 0);
    } else if (a == Arch::Opt) {
        // models/opt: learned positions with 2 extra rows (OPTLearnedPositionalEmbedding offset),
        // q/k/v/out_proj and fc1/fc2 with biases (enable_bias), ReLU, tied head; OPT-350m
        // projects a 512-wide embedding in and out and norms after each block.
        m.hidden = read_count(c, {"hidden_size"}, kMaxHidden, true);
        m.layers = read_count(c, {"num_hidden_layers"}, kMaxLayers, true);
        read_attention_shape(c, m, {"num_attention_heads"}, {}, {});
        m.intermediate = read_count(c, {"ffn_dim"}, kMaxIntermediate, true);
        m.position_rows = m.context_length > 0 ? m.context_length + 2 : 2050;
        const int64_t proj = read_count(c, {"word_embed_proj_dim"}, kMaxHidden, false, m.hidden);
        m.embed_proj = proj != m.hidden ? proj : 0;
        const bool pre = read_bool(c, "do_layer_norm_before", true);
        m.post_norm = !pre;
        m.final_norm = pre && !read_bool(c, "_remove_final_layer_norm", false);
        m.qkv_bias = m.attn_output_bias = m.mlp_bias = read_bool(c, "enable_bias", true);
        m.activation = read_text(c, "activation_function", "relu") == "relu" ? Activation::Relu : Activation::Gelu;
        m.hidden_dropout = read_fraction(c, {"dropout"}, 0.1);
        m.attention_dropout = read_fraction(c, {"attention_dropout"}, 0);
        m.softmax_fp32 = true;  // OPT eager: softmax(..., dtype=torch.float32) cast back
    } else if (a == Arch::Gptj) {
        // models/gptj: one ln_1 feeding attention and MLP in parallel, q/k/v/out without
        // bias, fc_in/fc_out with bias, gelu_new, untied lm_head with a bias.
        m.hidden = read_count(c, {"n_embd"}, kMaxHidden, true);
        m.layers = read_count(c, {"n_layer"}, kMaxLayers, true);
        read_attention_shape(c, m, {"n_head"}, {}, {});
        m.intermediate = read_count(c, {"n_inner"}, kMaxIntermediate, false, 4 * m.hidden);
        m.qkv_bias = m.attn_output_bias = false;
        m.parallel_block = true;
        m.norms_per_layer = 1;
        m.lm_head_bias = true;
        m.tied_embeddings = false;
        m.softmax_fp32 = true;  // GPTJAttention._attn: query and key in fp32
        m.activation = read_text(c, "activation_function", "gelu_new") == "gelu_new" ? Activation::GeluTanhComposite : Activation::Gelu;
        m.hidden_dropout = read_fraction(c, {"resid_pdrop"}, 0);
        m.attention_dropout = read_fraction(c, {"attn_pdrop"}, 0);
    } else if (a == Arch::Mpt) {
        // models/mpt (MptConfig with attn_config): fused Wqkv, out_proj, up/down_proj of
        // expansion_ratio·d_model, low-precision LayerNorm; no_bias drops every bias;
        // ALiBi (no position table), tied head.
        m.hidden = read_count(c, {"d_model"}, kMaxHidden, true);
        m.layers = read_count(c, {"n_layers"}, kMaxLayers, true);
        read_attention_shape(c, m, {"n_heads"}, {}, {});
        m.intermediate = read_count(c, {"expansion_ratio"}, 64, false, 4) * m.hidden;
        m.context_length = read_count(c, {"max_seq_len"}, 100'000'000, false, 2048);
        const json& attn = c.contains("attn_config") && c["attn_config"].is_object() ? c["attn_config"] : c;
        m.alibi = read_bool(attn, "alibi", false);
        if (!m.alibi && read_bool(c, "learned_pos_emb", true)) m.position_rows = m.context_length;
        m.qk_norm = m.qk_norm_full = read_bool(attn, "qk_ln", false);
        const bool bias = !read_bool(c, "no_bias", true);
        m.qkv_bias = m.attn_output_bias = m.mlp_bias = m.norm_bias = bias;
        m.fused_qkv = m.softmax_fp32 = true;
        m.attention_dropout = read_fraction(attn, {"attn_pdrop"}, 0);
        m.hidden_dropout = read_fraction(c, {"resid_pdrop"}, 0);
    } else if (a == Arch::StableLm) {
        // models/stablelm: Llama layout with LayerNorms (weight + bias), partial rotary,
        // use_qkv_bias, per-head q/k LayerNorms (qk_layernorm), parallel residual.
        llama_style(m);
        m.norm = NormKind::LayerNorm;
        m.norm_bias = true;
        m.hidden = read_count(c, {"hidden_size"}, kMaxHidden, true);
        m.layers = read_count(c, {"num_hidden_layers"}, kMaxLayers, true);
        read_attention_shape(c, m, {"num_attention_heads"}, {"num_key_value_heads"}, {});
        m.intermediate = read_count(c, {"intermediate_size"}, kMaxIntermediate, true);
        m.qkv_bias = read_bool(c, "use_qkv_bias", false);
        m.qk_norm = m.qk_norm_per_head_matrix = read_bool(c, "qk_layernorm", false);
        if (read_bool(c, "use_parallel_residual", false)) m.parallel_block = true, m.norms_per_layer = 1;
        m.hidden_dropout = read_fraction(c, {"hidden_dropout"}, 0);
        m.attention_dropout = read_fraction(c, {"attention_dropout"}, 0);
    } else if (a == Arch::Baichuan || a == Arch::InternLm2 || a == Arch::Exaone) {
        // Baichuan (remote modeling_baichuan.py): W_pack = q‖k‖v, NormHead; RoPE at hidden 4096,
        // ALiBi otherwise (vllm model_executor/models/baichuan.py BaichuanForCausalLM: "ROPE" if
        // config.hidden_size == 4096 else "ALIBI"). InternLM2: wqkv (grouped), wo, w1/w3/w2.
        // EXAONE 3 (models/exaone remote code, num_layers): q/k/v/out_proj, c_fc_0/c_fc_1/c_proj.
        llama_style(m);
        m.hidden = read_count(c, {"hidden_size"}, kMaxHidden, true);
        m.layers = read_count(c, {"num_hidden_layers", "num_layers"}, kMaxLayers, true);
        read_attention_shape(c, m, {"num_attention_heads"}, {"num_key_value_heads"}, {});
        m.intermediate = read_count(c, {"intermediate_size"}, kMaxIntermediate, true);
        m.fused_qkv = a != Arch::Exaone;
        if (a == Arch::Baichuan) m.alibi = m.hidden != 4096;
        if (a == Arch::InternLm2) m.qkv_bias = m.attn_output_bias = read_bool(c, "bias", false);
        m.attention_dropout = read_fraction(c, {"attention_dropout"}, 0);
    } else if (a == Arch::ChatGlm) {
        // ChatGLM2/3 and GLM-4 (THUDM remote modeling_chatglm.py): query_key_value with
        // add_qkv_bias, multi_query_group_num kv heads of kv_channels, dense_h_to_4h = gate‖up
        // (2·ffn_hidden_size), RMSNorm (rmsnorm), final_layernorm (post_layer_norm),
        // untied output_layer over padded_vocab_size.
        llama_style(m);
        m.hidden = read_count(c, {"hidden_size"}, kMaxHidden, true);
        m.layers = read_count(c, {"num_layers", "num_hidden_layers"}, kMaxLayers, true);
        const int64_t groups = read_bool(c, "multi_query_attention", false)
                                   ? read_count(c, {"multi_query_group_num"}, kMaxHeads, true) : 0;
        m.heads = read_count(c, {"num_attention_heads"}, kMaxHeads, true);
        m.kv_heads = groups > 0 ? groups : m.heads;
        m.head_dim = read_count(c, {"kv_channels"}, kMaxHidden, false, m.hidden / m.heads);
        if (m.heads % m.kv_heads != 0)
            throw InputError("config.multi_query_group_num", "must divide num_attention_heads (" + std::to_string(m.heads) + ")");
        m.intermediate = read_count(c, {"ffn_hidden_size"}, kMaxIntermediate, true);
        m.vocab = read_count(c, {"padded_vocab_size", "vocab_size"}, kMaxVocab, true);
        m.fused_qkv = m.fused_gate_up = true;
        m.qkv_bias = read_bool(c, "add_qkv_bias", false);
        m.attn_output_bias = m.mlp_bias = read_bool(c, "add_bias_linear", false);
        if (!read_bool(c, "rmsnorm", true)) m.norm = NormKind::LayerNorm, m.norm_bias = true;
        m.final_norm = read_bool(c, "post_layer_norm", true);
        m.context_length = read_count(c, {"seq_length"}, 100'000'000, false, 0);
        m.attention_dropout = read_fraction(c, {"attention_dropout"}, 0);
        m.hidden_dropout = read_fraction(c, {"hidden_dropout"}, 0);
    } else if (a == Arch::Qwen) {
        // Qwen v1 (remote modeling_qwen.py): c_attn = q‖k‖v with a bias, c_proj, an MLP of
        // w1, w2 (hidden -> intermediate_size / 2 each) and c_proj, RMSNorm, untied lm_head.
        llama_style(m);
        m.hidden = read_count(c, {"hidden_size"}, kMaxHidden, true);
        m.layers = read_count(c, {"num_hidden_layers"}, kMaxLayers, true);
        read_attention_shape(c, m, {"num_attention_heads"}, {}, {"kv_channels"});
        m.intermediate = read_count(c, {"intermediate_size"}, kMaxIntermediate, true) / 2;
        m.fused_qkv = m.qkv_bias = true;
        m.attention_dropout = read_fraction(c, {"attn_dropout_prob"}, 0);
    } else if (a == Arch::Starcoder2) {
        // models/starcoder2: q/k/v/o and c_fc/c_proj with biases (use_bias), LayerNorm with bias,
        // gelu_pytorch_tanh MLP, a sliding window in every layer, tied head by default.
        m.hidden = read_count(c, {"hidden_size"}, kMaxHidden, true);
        m.layers = read_count(c, {"num_hidden_layers"}, kMaxLayers, true);
        read_attention_shape(c, m, {"num_attention_heads"}, {"num_key_value_heads"}, {});
        m.intermediate = read_count(c, {"intermediate_size"}, kMaxIntermediate, true);
        m.qkv_bias = m.attn_output_bias = m.mlp_bias = m.norm_bias = read_bool(c, "use_bias", true);
        m.softmax_fp32 = true;  // eager_attention_forward: softmax in fp32, cast back
        m.attention_dropout = read_fraction(c, {"attention_dropout"}, 0);
        m.hidden_dropout = read_fraction(c, {"residual_dropout"}, 0);
        const int64_t window = read_count(c, {"sliding_window"}, 100'000'000, false, 0, true);
        m.layer_kinds.assign(static_cast<size_t>(m.layers), LayerKind{});
        if (window > 0)
            for (auto& k : m.layer_kinds) k = {Mixer::SlidingAttention, window, false};
    }
    if (m.vocab <= 0) m.vocab = read_count(c, {"vocab_size"}, kMaxVocab, true);
    const char* act_key = present_key(c, {"hidden_act", "activation_function"});
    if (act_key && a != Arch::Opt && a != Arch::Gptj) {
        const std::string act = text_field(c.at(act_key), field_name(act_key));
        m.activation = act == "gelu_new" ? Activation::GeluTanhComposite
                       : (act == "silu" || act == "swish") ? Activation::Silu : Activation::Gelu;
    }
    if (m.layer_kinds.size() != static_cast<size_t>(m.layers)) m.layer_kinds.assign(static_cast<size_t>(m.layers), LayerKind{});
}

}  // namespace vramcalc
