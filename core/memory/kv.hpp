#pragma once
// The KV cache of every attention kind, per GPU: full attention, sliding
// window, chunked local attention, linear-attention / SSM state, MLA, and
// quantized formats with their scales. Engines differ in how many tokens they
// keep for window layers; kept_window_tokens says what each one does.
#include <cstdint>
#include <string>

#include "job/layout.hpp"
#include "job/plan.hpp"

namespace vramcalc {

struct KvCost {
    double full_token = 0;    // bytes per token over the full-attention layers on this GPU
    double window_token = 0;  // bytes per token over the sliding-window layers
    double chunk_token = 0;   // bytes per token over the chunked-attention layers
    double state_seq = 0;     // bytes per sequence over the linear / SSM layers
    double every_token() const { return full_token + window_token + chunk_token; }
};

// Per GPU for the layers this GPU holds (`layer_share` of them: 1/pp, or the
// -ngl share for llama.cpp). Attention heads split by the attention TP degree
// (1 with data-parallel attention); MLA's latent is replicated.
KvCost kv_cost(const Plan& p, const Layout& l, double layer_share);

// Tokens a window (or chunk) layer keeps for `batch` sequences of `seq` tokens,
// as the job's engine allocates them.
double kept_window_tokens(const Plan& p, int64_t window, int64_t seq, int64_t batch);

// KV bytes for `batch` sequences of `seq` tokens.
double kv_bytes(const Plan& p, const KvCost& k, int64_t seq, int64_t batch);

// One sentence: how this engine allocates sliding-window / chunked layers.
std::string window_policy_text(const Plan& p);

// Bytes per stored element of the KV format, block/scale overhead included.
double kv_element_bytes(const Plan& p, int64_t head_dim);

}  // namespace vramcalc
