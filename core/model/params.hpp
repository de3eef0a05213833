#pragma once
// Parameter counting by listing every weight tensor of the architecture.
// The list (not just a total) is needed for LoRA (rank × (in + out) per
// targeted matrix), Adafactor (rows + cols per matrix) and quantization
// (embeddings usually stay 16-bit).
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.hpp"

namespace vramcalc {

enum class TensorKind {
    Embedding,     // token (and position) embedding tables
    Head,          // untied lm_head
    Attention,     // attention projections
    Mlp,           // dense or shared-expert MLP projections
    RoutedExpert,  // MoE routed experts: all in memory, top-k used per token
    Router,        // MoE gate
    Vector,        // norms, biases, conv kernels, SSM A/D/dt vectors, attention sinks
    Recurrent,     // linear projections of Mamba / linear-attention mixers (in_proj, out_proj, x_proj, dt_proj)
    Vision,        // vision/audio encoder and its projector (multimodal checkpoints)
};

// The linear layers of a block, by what they do; LoRA adapters, the activation
// model and llama.cpp's per-tensor types speak of these rather than of module
// names. Resolved once, when the tensor is listed (role_of).
enum Role : uint32_t {
    kRoleQ = 1u << 0, kRoleK = 1u << 1, kRoleV = 1u << 2, kRoleQkv = 1u << 3,  // fused c_attn / query_key_value
    kRoleO = 1u << 4, kRoleGate = 1u << 5, kRoleUp = 1u << 6, kRoleDown = 1u << 7,
    kRoleQLatent = 1u << 8, kRoleQUp = 1u << 9, kRoleKvLatent = 1u << 10, kRoleKvUp = 1u << 11,  // MLA
    kRoleExpert = 1u << 12,  // the target is (also) on routed experts
    kRoleFinalNorm = 1u << 13,  // the norm after the last block (llama.cpp keeps it with the output)
};

struct Tensor {
    const char* module;  // Hugging Face module name, used to pick LoRA targets
    TensorKind kind;
    int64_t in;            // input features (1 for vectors)
    int64_t out;           // output features / vector length
    int64_t copies;        // layers × experts holding this tensor
    int64_t active_copies; // copies a single token passes through
    uint32_t role = 0;     // Role bits from the module name and kind (0: not one of the named linears)

    double params() const { return static_cast<double>(in) * out * copies; }
    bool is_linear() const {
        return kind == TensorKind::Attention || kind == TensorKind::Mlp || kind == TensorKind::RoutedExpert ||
               kind == TensorKind::Recurrent;
    }
};

struct ParamCounts {
    double total = 0;       // every parameter in memory
    double active = 0;      // parameters one token uses (MoE: top-k experts only)
    double embeddings = 0;  // embedding tables + untied head (kept 16-bit by GPTQ/AWQ/bitsandbytes)
    double vision = 0;      // vision/audio encoder + projector (part of total; not in active text params)
    double routed_experts = 0;  // all routed-expert parameters (gpt-oss MXFP4 quantizes only these)
};

// Role bits of a module name (Hugging Face naming) of the given kind.
uint32_t role_of(const char* module, TensorKind kind);

// The tensors of the model; empty for a config that only gave num_parameters.
std::vector<Tensor> list_tensors(const ModelConfig& config);

// Totals over list_tensors, or the explicit count. Throws InputError when the
// architecture implies an absurd (> 1e15) parameter count.
ParamCounts count_params(const ModelConfig& config);

// Sum of params over tensors whose kind passes `keep`.
template <class Pred>
double sum_params(const std::vector<Tensor>& tensors, Pred keep) {
    double s = 0;
    for (const auto& t : tensors)
        if (keep(t)) s += t.params();
    return s;
}

}  // namespace vramcalc
