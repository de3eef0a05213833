#pragma once
// A model prepared once, and a plan: what a job needs that does not depend on
// how it is spread over GPUs, resolved once per estimate and reused for every
// layout tried.
#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"
#include "job.hpp"
#include "params.hpp"

namespace vramcalc {

// Exact weight bytes read from checkpoint metadata (core/checkpoint.hpp):
// a safetensors header or index, or a GGUF header.
struct ExactWeights {
    double bytes = 0;          // 0: none attached
    std::string source;        // "safetensors header", "GGUF header", ...
    double elements = 0;       // tensor elements in the shapes (0 for an index)
    // A GGUF header also gives where the bytes sit, for llama.cpp's -ngl split:
    std::vector<double> layer, experts;  // per blk.N (bytes), and of which *_exps tensors
    double token_embd = 0, output = 0;    // token_embd.weight; output + output_norm + the rest
    std::string mix;                      // "193 q4_K + 33 q6_K + 65 f32"
    bool present() const { return bytes > 0; }
};

struct Model {
    ModelConfig config;
    std::vector<Tensor> tensors;
    ParamCounts params;
    ExactWeights exact;        // attached with attach_checkpoint; used when job.dtype is auto
};
Model prepare_model(const ModelConfig& config);

// The linear layers of a block, by what they do; LoRA adapters and the
// activation model speak of these rather than of module names.
enum Role : uint32_t {
    kRoleQ = 1u << 0, kRoleK = 1u << 1, kRoleV = 1u << 2, kRoleQkv = 1u << 3,  // fused c_attn / query_key_value
    kRoleO = 1u << 4, kRoleGate = 1u << 5, kRoleUp = 1u << 6, kRoleDown = 1u << 7,
    kRoleQLatent = 1u << 8, kRoleQUp = 1u << 9, kRoleKvLatent = 1u << 10, kRoleKvUp = 1u << 11,  // MLA
    kRoleExpert = 1u << 12,  // the target is (also) on routed experts
};
uint32_t role_of(const Tensor& t);

struct Plan {
    const Model& m;
    const Job& job;
    const NumberFormat& compute;  // dtype of matmuls, activations and 16-bit gradients
    const NumberFormat& weights;  // how the base weights are stored
    const WeightQuant* shipped = nullptr;  // dtype auto + quantization_config: the checkpoint's own scheme
    bool exact = false;           // dtype auto + checkpoint metadata: weights are m.exact.bytes
    const NumberFormat* kv;       // KV cache format; null when training
    std::vector<const Tensor*> lora;  // tensors with adapters (LoRA modes)
    uint32_t lora_roles = 0;      // their roles, for the activation model
    double trainable = 0;         // parameters that get gradients and optimizer state
    double adafactor_values = 0;  // Adafactor's factored state size, when it is the optimizer
    double largest_tensor = 0;    // parameters of the largest single tensor (embedding, usually)
    double largest_linear = 0;    // parameters of the largest linear matrix (QLoRA dequantizes one at a time)
    double layer_params = 0;      // parameters of one block (FSDP gathers one at a time)
};

Plan make_plan(const Model& m, const Job& job);
double trainable_params(const Model& model, const Job& job);

}  // namespace vramcalc
