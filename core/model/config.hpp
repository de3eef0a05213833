#pragma once
// Model metadata read from a Hugging Face config.json (or an explicit
// parameter count). Only the fields that decide parameter count, KV cache and
// activation size are kept.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/formats.hpp"

namespace vramcalc {

enum class Family {
    LlamaLike,  // llama, mistral, mixtral, qwen2(+moe), qwen3(+moe), gemma*, phi3: gated MLP, RMSNorm
    Gpt2,       // learned positions, fused c_attn, plain GELU MLP, biases everywhere
    GptNeoX,    // rotary, fused query_key_value, plain GELU MLP, biases, untied head
    DeepSeek,   // MLA attention + fine-grained MoE (deepseek_v2 / deepseek_v3 / kimi_k2)
    Falcon,     // fused query_key_value (multi-query or grouped), parallel attention + plain GELU MLP, LayerNorm
    Mamba,      // attention-free state-space stack (mamba, mamba2): one mixer per layer, no MLP
    Encoder,    // bidirectional encoder stack (bert, roberta, xlm-roberta, electra, deberta-v2, distilbert, modernbert)
    EncoderDecoder,  // encoder + decoder with cross-attention (t5, mt5, umt5, bart, mbart, marian, whisper)
    Explicit,   // only a parameter count (and optionally dimensions) was given
};

// The architectures of issue 24, resolved from model_type once when the config
// is read: which tensors exist and how their blocks compute.
enum class Arch : uint8_t {
    None,  // the families above name everything themselves
    Bert, Roberta, Electra, DebertaV2, DistilBert, ModernBert,  // encoders (Roberta covers xlm-roberta)
    T5, Umt5, Bart, Whisper,                                     // encoder-decoders (Bart covers mbart, marian)
    Bloom, Opt, Gptj, Mpt, StableLm, Baichuan, InternLm2, ChatGlm, Qwen, Exaone, Starcoder2,  // other decoders
};

// The model class around the stack (transformers' Auto classes): which output
// layer exists and which stacks run. Resolved once from config.json's
// `architectures` (or set by the job's `head`; core/model/heads.cpp).
enum class Head : uint8_t {
    CausalLM,                // *ForCausalLM, *LMHeadModel: vocabulary-sized head over every token
    Seq2SeqLM,               // *ForConditionalGeneration of an encoder-decoder, MarianMTModel
    MaskedLM,                // *ForMaskedLM: transform + decoder tied to the embeddings + bias
    Pretraining,             // BertForPreTraining (MLM + next sentence), ElectraForPreTraining (discriminator)
    SequenceClassification,  // *ForSequenceClassification: num_labels outputs per sequence
    TokenClassification,     // *ForTokenClassification: num_labels outputs per token
    QuestionAnswering,       // *ForQuestionAnswering: start and end logits per token
    Ctc,                     // an audio encoder with a vocabulary projection and CTC loss (Wav2Vec2ForCTC style)
    Base,                    // the bare model (AutoModel): hidden states out, BERT's pooler included
    Encoder,                 // the encoder stack alone (T5EncoderModel, WhisperEncoder)
};

// Hugging Face module names of a block's linear layers (LoRA targets name
// them); one static table per architecture, chosen when the config is read.
struct ModuleNames {
    const char *q, *k, *v, *qkv, *o, *gate, *up, *gate_up, *down, *embed, *head;
    const char *cross_q = nullptr, *cross_k = nullptr, *cross_v = nullptr, *cross_o = nullptr;  // encoder-decoders
};

// How a block computes, as far as memory is concerned: which tensors
// autograd saves depends on these, not on the model's name.
enum class NormKind { RMSNorm, LayerNorm };
enum class Activation {
    Silu,               // SwiGLU gate (Llama, Mistral, Qwen, DeepSeek)
    Gelu,               // one fused op: torch gelu / gelu_pytorch_tanh (GPT-NeoX, Gemma)
    GeluTanhComposite,  // "gelu_new" as HF writes it in Python: pow, tanh, mul, add (GPT-2)
    Relu,               // one op saving its output (T5, OPT)
};

// What mixes tokens in one layer. The KV-cache and activation code read this
// per layer instead of assuming every layer is full attention.
enum class Mixer {
    FullAttention,     // causal attention over the whole context: KV grows with the sequence
    SlidingAttention,  // attends to the last `window` tokens only (Mistral, Gemma 2/3 local layers, gpt-oss even layers)
    ChunkedAttention,  // attends within fixed chunks of `window` tokens (Llama 4 "attention_chunk_size" layers)
    LinearAttention,   // recurrent linear attention: Gated DeltaNet (qwen3_next), lightning attention (minimax)
    Mamba,             // selective state space: Mamba-1 (mamba, jamba) or Mamba-2 (mamba2, granitemoehybrid)
};

struct LayerKind {
    Mixer mixer = Mixer::FullAttention;
    int64_t window = 0;  // tokens: the sliding window or the chunk size; 0 for the other mixers
    bool moe = false;    // this layer's MLP is a mixture of experts (else dense, or none for pure SSM)
};

// Shapes of the recurrent (linear-attention / SSM) mixers. Their per-sequence
// state does not grow with the context: conv_state_values + ssm_state_values
// values per such layer per sequence (multiply by the state dtype's bytes).
struct RecurrentDims {
    int64_t d_inner = 0;      // Mamba: expand·hidden; DeltaNet/lightning: value width (v_heads·v_head_dim)
    int64_t d_state = 0;      // Mamba state size N; DeltaNet: key head dim
    int64_t d_conv = 0;       // causal conv1d kernel width (0 = no conv)
    int64_t dt_rank = 0;      // Mamba-1 Δ projection rank
    int64_t heads = 0;        // Mamba-2 / DeltaNet value heads / lightning heads
    int64_t head_dim = 0;     // Mamba-2 head dim; DeltaNet value head dim; lightning head dim
    int64_t groups = 0;       // Mamba-2 n_groups (B, C shared per group); DeltaNet key heads
    int64_t key_dim = 0;      // DeltaNet: key heads·key head dim
    int64_t conv_state_values = 0;  // per layer per sequence: conv_dim × d_conv (HF caches the full kernel width)
    int64_t ssm_state_values = 0;   // per layer per sequence: Mamba-1 d_inner·d_state, Mamba-2 heads·head_dim·d_state,
                                    //   DeltaNet v_heads·k_head_dim·v_head_dim, lightning heads·head_dim²
};

// A vision (or audio) encoder shipped in the same checkpoint, counted as its
// own tensors (TensorKind::Vision). ViT layout: patch embedding, positions,
// layers of attention + MLP, plus the projector into the language model.
struct VisionTower {
    std::string kind;          // "siglip" (Gemma 3), "clip" (LLaVA), "qwen2_5_vl", "llama4", "mllama",
                               // "qwen3_vl" (Qwen3-VL, Qwen3.5), "pixtral" (Mistral 3)
    int64_t hidden = 0, layers = 0, heads = 0, intermediate = 0;
    int64_t patch = 0, image = 0, channels = 3, temporal_patch = 1;
    int64_t positions = 0;     // learned position rows (0 = rotary, none)
    bool gated_mlp = false;    // Qwen2.5-VL uses SwiGLU in the vision blocks
    bool rms_norm = false;     // norms without bias
    int64_t projector_in = 0, projector_hidden = 0, projector_out = 0;  // MLP projector (hidden 0 = one linear)
    bool attn_bias = true;     // q, k, v, o biases (Mllama's vision attention has none)
    int64_t global_layers = 0; // Mllama: gated global encoder layers after the local ones
    int64_t tiles = 1;         // Mllama max_num_tiles (tile and tile-position embeddings)
    int64_t aspect_ratios = 0; // Mllama supported_aspect_ratios (+1 embedding rows for "none")
    int64_t merge = 2;         // spatial_merge_size: merge² patches enter the projector as one (Qwen3-VL, Mistral 3)
    int64_t deepstack = 0;     // Qwen3-VL: DeepStack mergers feeding intermediate layers' features to the text model
    bool mlp_bias = true;      // biases on the MLP (Pixtral's SwiGLU has none)
    bool projector_bias = true;  // Mistral 3: multimodal_projector_bias on linear_1 / linear_2
    bool has() const { return layers > 0; }
};

// The weight format a config.json's quantization_config selects. `bits` is
// the storage cost per quantized weight including scales/zeros, derived from
// the scheme (bits, group size, block size); `format` is the closest entry of
// model/formats.cpp (resolved when the config is read) so the rest of the core
// can reuse its rules.
struct WeightQuant {
    std::string method;        // quant_method as written: gptq, awq, fp8, bitsandbytes, mxfp4, compressed-tensors
    const NumberFormat* format = nullptr;  // gptq, awq, fp8, int8, nf4, mxfp4 or int4; null when absent
    std::string scheme;        // human-readable summary, e.g. "GPTQ 4-bit, group 128, desc_act"
    std::string bits_source;   // how `bits` was derived (formula)
    double bits = 0;           // bits per quantized weight including scales
    int64_t weight_bits = 0;   // bits of the integer/float code (4, 8)
    int64_t group_size = 0;    // values sharing one scale (-1/0 = per channel)
    bool desc_act = false;     // GPTQ act-order: adds a g_idx int32 per input row
    bool experts_only = false; // only MoE expert matrices are quantized (gpt-oss MXFP4)
    // The modules the checkpoint keeps unquantized (model/skip_lists.cpp reads them tensor by tensor):
    // modules_to_not_convert / llm_int8_skip_modules as transformers matches them, or compressed-tensors'
    // ignore; `not_converted_key` names the field, for errors. compressed-tensors also lists the modules
    // it quantizes (config_groups targets; "Linear" is every linear layer).
    std::vector<std::string> not_converted;
    std::string not_converted_key;
    std::vector<std::string> targets;
    bool compressed_tensors_rules = false;  // ignore / targets as compressed-tensors matches them (else transformers')
    bool head_kept = true;     // the untied lm_head stays 16-bit unless listed otherwise (see config_quant.cpp)
    bool present() const { return !method.empty(); }
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
    int64_t nextn_layers = 0;         // multi-token-prediction layers in the checkpoint (num_nextn_predict_layers)

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
        None,           // an encoder layer: nothing is cached (bidirectional, the whole input at once)
    };
    std::vector<KvKind> kv_kinds;
    int64_t sliding_window = 0;      // tokens a sliding layer attends to
    int64_t attention_chunk = 0;     // Llama 4 attention_chunk_size
    int64_t sink_tokens = 0;         // StreamingLLM-style sink tokens kept by sliding layers (0: gpt-oss sinks are logits)
    int64_t linear_state_elems = 0;  // per sequence per linear/SSM layer: conv state + recurrent state values
    int64_t linear_state_fp32_elems = 0;  // of which kept in fp32 (Mamba SSM state in vLLM/llama.cpp)
    int64_t kv_kind_count(KvKind k) const;

    // ---- Per-layer structure (models agent, issue 10). Always `layers` long
    // after parse_config; plain transformers get FullAttention everywhere.
    std::vector<LayerKind> layer_kinds;
    RecurrentDims recurrent;          // dims of the LinearAttention / Mamba layers
    Mixer recurrent_mixer = Mixer::Mamba;  // which recurrent mixer those layers use (LinearAttention or Mamba)
    bool mamba2 = false;              // Mamba layers are Mamba-2 (SSD) rather than Mamba-1
    bool attention_sinks = false;     // gpt-oss: one learned sink logit per head in the softmax denominator;
                                      //   no extra KV entries (StreamingLLM-style sink tokens are not this)
    int64_t linear_attention_kind = 0;// 1 = Gated DeltaNet (qwen3_next), 2 = lightning attention (minimax)

    // ---- Tensor-shape details of the newer families
    bool attn_output_bias = false;    // o_proj has a bias (GPT-2/NeoX/BigCode, gpt-oss, PhiMoE, Falcon with "bias": true)
    bool attn_output_gate = false;    // qwen3_next: q_proj also emits a sigmoid gate (q width doubled)
    bool mlp_bias = false;            // plain-MLP projections carry biases (GPT-2, GPT-BigCode, GPT-NeoX)
    bool expert_bias = false;         // gpt-oss experts and router carry biases
    bool norm_bias = false;           // LayerNorm with bias (gpt2-style, falcon, phimoe); Cohere's LayerNorm has none
    bool parallel_block = false;      // attention and MLP read the same normed input (falcon, cohere, GPT-J style)
    bool parallel_hybrid = false;     // every layer has attention and a Mamba-2 mixer side by side (Falcon-H1)
    bool mamba_norm = true;
    int64_t cross_attention_layers = 0;  // Mllama: layers attending to the image (gated, with q/k norms)
    int64_t extra_embeddings = 0;        // embedding rows past vocab_size (Mllama: 8 image tokens)           // the Mamba-2 mixer's gated RMSNorm exists (Falcon-H1: mamba_rms_norm)
    bool lm_head_bias = false;        // phimoe
    bool qk_norm_full = false;        // olmo2: q_norm/k_norm over the whole projection, not per head
    bool qk_norm_per_head_matrix = false;  // cohere (R+): q/k norm weights per head × head_dim
    bool shared_expert_gate = false;  // qwen2_moe/qwen3_next: sigmoid gate on the shared expert
    bool router_bias = false;         // e_score_correction_bias (deepseek_v3, glm4_moe, kimi)
    bool fp32_router = false;         // router and expert combine in fp32 copies (deepseek_v3)
    int64_t indexer_heads = 0;        // DSA lightning indexer (deepseek_v32, glm_moe_dsa): index_n_heads
    int64_t indexer_head_dim = 0;     //   and index_head_dim (its key cache: one such key per token per layer)
    int64_t attention_layers() const; // layers whose mixer is an attention kind
    int64_t recurrent_layers() const; // layers whose mixer is LinearAttention or Mamba
    // kv_kind_count and attention_layers, counted once when the config is read (count_layer_kinds,
    // called by parse_config and after set_head re-kinds the layers): the answers ask them on every
    // step of a search, and a walk over 10,000 layers each time made a deep config's answers slow.
    // Used while kv_kinds and layer_kinds keep the sizes they were counted at; else counted again.
    void count_layer_kinds();
    int64_t kv_counts[6] = {};
    int64_t attention_count = 0;
    size_t counted_kv = SIZE_MAX, counted_kinds = SIZE_MAX;

    VisionTower vision;               // multimodal checkpoints: vision encoder + projector
    WeightQuant quant;                // quantization_config (empty when the checkpoint is unquantized)

    // Unknown model_type with the generic keys: counted as a Llama-like
    // decoder. The lead surfaces `approximate_note` next to the figures.
    bool approximate = false;
    std::string approximate_note;     // "approximate: unknown architecture 'X' counted as a Llama-style decoder ..."

    // ---- Issue 24: encoders, encoder-decoders and the remaining decoders (core/model/config_families.cpp)
    Arch arch = Arch::None;
    Head head = Head::CausalLM;       // from `architectures` (CausalLM for decoders without one)
    int64_t num_labels = 2;           // classification outputs: len(id2label), else transformers' default 2
    const ModuleNames* names = nullptr;  // null: the Llama names (q_proj, ..., down_proj)
    bool fused_qkv = false;           // one q‖k‖v projection (W_pack, wqkv, query_key_value, c_attn, Wqkv)
    bool fused_gate_up = false;       // one gate‖up projection (ChatGLM dense_h_to_4h, ModernBERT Wi)
    int64_t encoder_layers = 0;       // EncoderDecoder: the encoder's layers (`layers` are the decoder's)
    int64_t encoder_intermediate = 0; // EncoderDecoder: the encoder's MLP width (`intermediate` is the decoder's)
    int64_t encoder_positions = 0;    // Whisper: the frames its encoder always sees (max_source_positions)
    int64_t mel_bins = 0;             // Whisper: num_mel_bins, the conv stem's input channels
    int64_t type_vocab = 0;           // BERT-style token_type_embeddings rows
    int64_t embedding_size = 0;       // ELECTRA factorized embedding width (0 = hidden)
    int64_t position_rows = 0;        // learned absolute position rows (BERT 512, OPT/BART max + 2; 0 = none)
    int64_t embed_proj = 0;           // OPT word_embed_proj_dim when it differs from hidden (project_in/out)
    bool embedding_norm = false;      // a norm right after the embeddings (BERT family, BLOOM, BART layernorm_embedding)
    bool post_norm = false;           // LayerNorm after each residual add (BERT, BART, Marian), else before each sublayer
    bool final_norm = true;           // a norm after the last block (OPT-350m and post-norm encoders have none)
    bool alibi = false;               // ALiBi slopes instead of positions (BLOOM, MPT, Baichuan 13B)
    // RoPE tables an engine precomputes (vLLM layers/rotary_embedding; core/model/config.cpp
    // parse_rope): rows of the scaled table, of a second unscaled one (Gemma 3's local RoPE), and
    // the rotary width. 0 rows: no rotary embedding.
    int64_t rope_rows = 0, rope_rows_local = 0, rotary_dim = 0;
    int64_t relative_buckets = 0;     // T5 relative_attention_num_buckets (0: no bucketed bias)
    bool relative_bias_every_layer = false;  // UMT5: every self-attention has its own bias table
    int64_t relative_embeddings = 0;  // DeBERTa-v2 rel_embeddings rows (2 × position_buckets)
    bool relative_norm = false;       // DeBERTa-v2 norm_rel_ebd "layer_norm": a LayerNorm over rel_embeddings
    int64_t position_projections = 0; // DeBERTa-v2 without share_att_key: pos_key_proj / pos_query_proj per layer
    int64_t conv_kernel = 0;          // DeBERTa-v2 conv_kernel_size: a ConvLayer after the first layer (0 = none)
    int64_t pooler = 0;               // BERT-style pooler width in the bare model (0: none)
    double activation_dropout = 0;    // dropout after the MLP activation (BART, Marian, Whisper, T5)
    bool softmax_fp32 = true;         // eager softmax in fp32 (Llama, T5, BLOOM, MPT) rather than the model dtype
    std::vector<int64_t> dense_modules;  // sentence-transformers Dense modules: in, out, bias (0/1) per module
    bool has_decoder() const;         // an EncoderDecoder whose head runs the decoder
    bool bidirectional() const { return family == Family::Encoder || family == Family::EncoderDecoder; }

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
