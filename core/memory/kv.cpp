#include "memory/kv.hpp"

#include <algorithm>

#include "text/units.hpp"

namespace vramcalc {
namespace {

using Kind = ModelConfig::KvKind;

int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

}  // namespace

// fp8: one per-tensor scale (vllm attention k_scale / v_scale), negligible.
// int8 / int4: an fp16 scale and zero per head per token for K and for V
// (LMDeploy quant_policy 8 / 4, turbomind kv cache quantization) = 4 bytes per
// head_dim values. q8_0 / q4_0: ggml blocks of 32 with an fp16 scale, already
// in the format's 8.5 / 4.5 bits (ggml-common.h block_q8_0, block_q4_0).
double kv_element_bytes(const Plan& p, int64_t head_dim) {
    const NumberFormat& f = *p.kv;
    double bytes = f.bits / 8;
    if ((f.id == FormatId::Int8 || f.id == FormatId::Int4) && head_dim > 0)
        bytes += 4.0 / static_cast<double>(head_dim);
    return bytes;
}

KvCost kv_cost(const Plan& p, const Layout& l, double layer_share) {
    const ModelConfig& c = p.m.config;
    KvCost k;
    if (!p.kv || c.layers <= 0) return k;
    const int64_t attn_tp = p.job.dp_attention ? 1 : l.tp;
    double per_layer_token = 0;
    if (c.is_mla()) {
        // DeepSeek-V2 §2.1.2: one latent of kv_lora_rank + qk_rope_head_dim per token, all heads share it.
        per_layer_token = static_cast<double>(c.kv_lora_rank + c.qk_rope_head_dim) * kv_element_bytes(p, 0);
        // DSA (DeepSeek-V3.2, GLM-5): the lightning indexer keeps one key of index_head_dim per token
        // per layer in FP8 with an fp32 scale per 128 values, whatever the KV dtype (DeepSeek-V3.2
        // inference/model.py Indexer k_cache / k_scale_cache; vLLM's and SGLang's indexer caches).
        if (c.indexer_head_dim > 0)
            per_layer_token += static_cast<double>(c.indexer_head_dim) + 4.0 * static_cast<double>((c.indexer_head_dim + 127) / 128);
    } else if (c.heads > 0) {
        const int64_t kv_heads = c.kv_heads > 0 ? c.kv_heads : c.heads;
        const int64_t head_dim = c.head_dim > 0 ? c.head_dim : c.hidden / c.heads;
        // TP splits kv heads; past kv_heads each rank keeps a replica of one (vLLM, Megatron).
        const int64_t heads_here = (kv_heads + attn_tp - 1) / attn_tp;
        per_layer_token = 2.0 * static_cast<double>(heads_here * head_dim) * kv_element_bytes(p, head_dim);
    }
    const double share = layer_share;
    k.full_token = per_layer_token * static_cast<double>(c.kv_kind_count(Kind::Full) + c.kv_kind_count(Kind::FullAndLinear)) * share;
    k.window_token = per_layer_token * static_cast<double>(c.kv_kind_count(Kind::Sliding)) * share;
    k.chunk_token = per_layer_token * static_cast<double>(c.kv_kind_count(Kind::Chunked)) * share;
    // Linear / SSM state: fp32 recurrent state where the engines keep it so, the
    // rest (conv state) in the compute dtype; split over TP like the heads.
    const double state = static_cast<double>(c.linear_state_fp32_elems) * 4 +
                         static_cast<double>(c.linear_state_elems - c.linear_state_fp32_elems) * p.compute.bits / 8;
    k.state_seq = state / static_cast<double>(attn_tp) *
                  static_cast<double>(c.kv_kind_count(Kind::Linear) + c.kv_kind_count(Kind::FullAndLinear)) * share;
    // Encoder-decoders: every decoder layer's cross-attention keeps the keys and values it
    // projected from the encoder's output, once per sequence (transformers EncoderDecoderCache's
    // cross_attention_cache, filled at the first step; vLLM's cross-attention KV of the encoder
    // tokens): 2 · kv heads · head_dim per encoder token per layer, whatever the number of
    // generated tokens. The self-attention KV above grows with them.
    if (c.has_decoder())
        k.state_seq += per_layer_token * static_cast<double>(c.layers) * share *
                       static_cast<double>(encoder_tokens(p.job, c));
    return k;
}

// How many tokens of a window (or chunk) layer an engine allocates:
// - llama.cpp (src/llama-kv-cache-iswa.cpp, llama_kv_cache_iswa ctor): the SWA
//   cache holds min(n_ctx, GGML_PAD(n_swa·n_seq_max + n_ubatch, 256)) cells
//   unless --swa-full (then n_ctx).
// - vLLM V1 (vllm/v1/kv_cache_interface.py SlidingWindowSpec.max_memory_usage_bytes):
//   cdiv(window − 1 + max_num_batched_tokens, block_size) + 1 blocks per request.
// - transformers (cache_utils.py DynamicSlidingWindowLayer): the last window tokens.
// - SGLang (mem_cache/swa_memory_pool.py, v0.5.2+): the window per request in a pool of its own
//   (serving/sglang.cpp sizes it by swa_full_tokens_ratio); full length with
//   --disable-hybrid-swa-memory.
double kept_window_tokens(const Plan& p, int64_t window, int64_t seq, int64_t batch) {
    const Job& job = p.job;
    const double full = static_cast<double>(seq) * static_cast<double>(batch);
    if (job.swa_full || window <= 0) return full;
    const int64_t w = window + p.m.config.sink_tokens;
    switch (job.engine) {
        case Engine::LlamaCpp:
        case Engine::Ollama:
            return std::min(full, static_cast<double>(round_up(w * batch + job.n_ubatch, 256)));
        case Engine::Vllm: {
            const int64_t tokens = job.max_num_batched_tokens > 0 ? job.max_num_batched_tokens : 8192;
            const int64_t blocks = (w - 1 + tokens + job.block_size - 1) / job.block_size + 1;
            return static_cast<double>(std::min(seq, blocks * job.block_size)) * static_cast<double>(batch);
        }
        case Engine::Sglang:
            return job.disable_hybrid_swa_memory ? full : static_cast<double>(std::min(seq, w)) * static_cast<double>(batch);
        default:
            return static_cast<double>(std::min(seq, w)) * static_cast<double>(batch);
    }
}

double kv_bytes(const Plan& p, const KvCost& k, int64_t seq, int64_t batch) {
    const ModelConfig& c = p.m.config;
    const double tokens = static_cast<double>(seq) * static_cast<double>(batch);
    return k.full_token * tokens + k.window_token * kept_window_tokens(p, c.sliding_window, seq, batch) +
           k.chunk_token * kept_window_tokens(p, c.attention_chunk, seq, batch) +
           k.state_seq * static_cast<double>(batch);
}

std::string window_policy_text(const Plan& p) {
    const ModelConfig& c = p.m.config;
    const bool windows = c.kv_kind_count(Kind::Sliding) + c.kv_kind_count(Kind::Chunked) > 0;
    if (!windows) return "";
    std::string what = std::to_string(c.kv_kind_count(Kind::Sliding) + c.kv_kind_count(Kind::Chunked)) + " of " +
                       std::to_string(c.layers) + " layers use a " +
                       (c.kv_kind_count(Kind::Sliding) > 0 ? std::to_string(c.sliding_window) + "-token sliding window"
                                                        : std::to_string(c.attention_chunk) + "-token chunk");
    if (p.job.swa_full) return what + "; allocated at full length (swa_full)";
    switch (p.job.engine) {
        case Engine::LlamaCpp:
        case Engine::Ollama: return what + "; llama.cpp keeps window × sequences + n_ubatch cells for them (iSWA cache)";
        case Engine::Vllm: return what + "; vLLM V1 keeps window + max_num_batched_tokens tokens per request for them";
        case Engine::Sglang:
            return what + (p.job.disable_hybrid_swa_memory ? "; SGLang keeps them at full length (disable_hybrid_swa_memory)"
                                                           : "; SGLang keeps their window in a pool of its own (swa_full_tokens_ratio)");
        default: return what + "; only the window is kept for them";
    }
}

}  // namespace vramcalc
