#pragma once
// Model metadata read from a Hugging Face config.json (or an explicit
// parameter count). Only the fields that decide parameter count, KV cache and
// activation size are kept.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vramcalc {

enum class Family {
    LlamaLike,  // llama, mistral, mixtral, qwen2(+moe), qwen3(+moe), gemma*, phi3: gated MLP, RMSNorm
    Gpt2,       // learned positions, fused c_attn, plain GELU MLP, biases everywhere
    GptNeoX,    // rotary, fused query_key_value, plain GELU MLP, biases, untied head
    DeepSeek,   // MLA attention + fine-grained MoE (deepseek_v2 / deepseek_v3)
    Explicit,   // only a parameter count (and optionally dimensions) was given
};

// How a block computes, as far as memory is concerned: which tensors
// autograd saves depends on these, not on the model's name.
enum class NormKind { RMSNorm, LayerNorm };
enum class Activation {
    Silu,               // SwiGLU gate (Llama, Mistral, Qwen, DeepSeek)
    Gelu,               // one fused op: torch gelu / gelu_pytorch_tanh (GPT-NeoX, Gemma)
    GeluTanhComposite,  // "gelu_new" as HF writes it in Python: pow, tanh, mul, add (GPT-2)
};

struct ModelConfig {
    std::string model_type;
    Family family = Family::LlamaLike;
    NormKind norm = NormKind::RMSNorm;
    Activation activation = Activation::Silu;
    bool gated_mlp = true;            // gate_proj · up_proj (SwiGLU/GeGLU) vs one up projection
    double attention_dropout = 0;     // dropout on attention probabilities (GPT-2 attn_pdrop)
    double hidden_dropout = 0;        // dropout after attention and MLP outputs (GPT-2 resid_pdrop)
    int64_t context_length = 0;       // max_position_embeddings (0 = not stated)

    int64_t hidden = 0;        // hidden_size / n_embd
    int64_t layers = 0;        // num_hidden_layers / n_layer
    int64_t heads = 0;         // num_attention_heads / n_head
    int64_t kv_heads = 0;      // num_key_value_heads (GQA); = heads when absent
    int64_t head_dim = 0;      // head_dim; = hidden / heads when absent
    int64_t intermediate = 0;  // intermediate_size (dense MLP width)
    int64_t vocab = 0;         // vocab_size
    int64_t max_positions = 0; // GPT-2 learned position table
    bool tied_embeddings = false;
    bool qkv_bias = false;     // Qwen2 puts a bias on q, k, v
    bool qk_norm = false;      // Qwen3 normalises q and k per head
    int norms_per_layer = 2;   // Gemma 2/3 use four

    // Mixture of experts (0 experts = dense model)
    int64_t experts = 0;              // routed experts per MoE layer
    int64_t experts_per_token = 0;    // top-k routed experts a token uses
    int64_t shared_experts = 0;       // DeepSeek always-on experts (width moe_intermediate)
    int64_t moe_intermediate = 0;     // width of one routed expert
    int64_t shared_expert_intermediate = 0;  // Qwen2-MoE single shared expert width
    int64_t dense_layers = 0;         // layers that keep a dense MLP (first_k_dense_replace, mlp_only_layers)

    // Multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank > 0 means MLA
    int64_t q_lora_rank = 0;
    int64_t kv_lora_rank = 0;
    int64_t qk_nope_head_dim = 0;
    int64_t qk_rope_head_dim = 0;
    int64_t v_head_dim = 0;

    int64_t explicit_params = 0;  // num_parameters, for Family::Explicit

    // --- KV layout (serving helper; core/kv_layout.cpp). When the models helper's per-layer
    // mixers (layer_kinds, recurrent) land, parse_attention_layout can fill these from them. ---
    // Which kind of token mixer each layer has. Empty = every layer full attention.
    enum class KvKind : uint8_t {
        Full,           // global attention: keys and values of every token
        Sliding,        // sliding window: the last sliding_window tokens (+ sink tokens)
        Chunked,        // chunked local attention (Llama 4): the tokens of the current chunk
        Linear,         // linear attention / SSM: a constant-size state per sequence, no KV
        FullAndLinear,  // attention and SSM heads side by side in one layer (Falcon-H1)
    };
    std::vector<KvKind> kv_kinds;
    int64_t sliding_window = 0;      // tokens a sliding layer attends to
    int64_t attention_chunk = 0;     // Llama 4 attention_chunk_size
    int64_t sink_tokens = 0;         // StreamingLLM-style sink tokens kept by sliding layers (0: gpt-oss sinks are logits)
    int64_t linear_state_elems = 0;  // per sequence per linear/SSM layer: conv state + recurrent state values
    int64_t linear_state_fp32_elems = 0;  // of which kept in fp32 (Mamba SSM state in vLLM/llama.cpp)
    int64_t kv_kind_count(KvKind k) const;

    bool is_moe() const { return experts > 0; }
    bool is_mla() const { return kv_lora_rank > 0; }
    int64_t moe_layers() const { return is_moe() ? layers - dense_layers : 0; }
};

// Parses a config.json document. Throws InputError naming the offending field.
ModelConfig parse_config(const nlohmann::json& config);
ModelConfig parse_config_text(const std::string& text);

// The model_type values this build understands, for error messages and docs.
const char* supported_model_types();

// For Family::Explicit configs, the dimension a computation needs; throws
// InputError naming config.<field> when the config did not give it.
int64_t require_dimension(int64_t value, const char* field, const char* needed_for);

}  // namespace vramcalc
