#pragma once
// GGUF weights as llama.cpp stores them: each tensor gets its own ggml type by
// llama.cpp's rules (src/llama-quant.cpp llama_tensor_get_type), so a
// "Q4_K_M" file mixes q4_K, q6_K (and for MoE q8_0 / q5_K) with f32 norms,
// and its bits per weight depend on the model.
#include <string>
#include <vector>

#include "job/plan.hpp"

namespace vramcalc {

struct GgufWeights {
    std::vector<double> layer;    // bytes of each repeating block, routed experts included
    std::vector<double> experts;  // of which routed experts
    double output = 0;            // output.weight (+ output_norm): the "+1" layer of -ngl
    double token_embd = 0;        // llama.cpp keeps it in host memory (get_rows runs on the CPU)
    std::string mix;              // "193 q4_K + 33 q6_K + 65 f32"
    double total() const;
};

// True for the GGUF file types whose per-tensor rules we apply.
bool is_gguf_format(const NumberFormat& f);
// Per-tensor GGUF sizes for the job's dtype (GGUF types, or all-f16/bf16/f32).
// Throws InputError("config") for a config given only as num_parameters.
GgufWeights gguf_weights(const Plan& p);

}  // namespace vramcalc
