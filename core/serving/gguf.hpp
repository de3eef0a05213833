#pragma once
// GGUF weights as llama.cpp stores them: each tensor gets its own ggml type by
// llama.cpp's rules (src/llama-quant.cpp llama_tensor_get_type), so a
// "Q4_K_M" file mixes q4_K, q6_K (and for MoE q8_0 / q5_K) with f32 norms,
// and its bits per weight depend on the model.
#include <string>
#include <vector>

#include "job/plan.hpp"

namespace vramcalc {

// Per-layer bytes as llama.cpp places them (model/model.hpp).
using GgufWeights = LayerBytes;

// True for the GGUF file types whose per-tensor rules we apply.
bool is_gguf_format(const NumberFormat& f);
// Per-tensor GGUF sizes for the job's dtype (GGUF types, or all-f16/bf16/f32), or an attached GGUF
// header's own. Computed once per model, file type and rules era (kept in the model's cache), so
// every later call costs a lookup. Throws InputError("config") for a config given only as num_parameters.
const GgufWeights& gguf_weights(const Plan& p);

}  // namespace vramcalc
