#pragma once
// A plan: what a job needs from a prepared model (model/model.hpp) that does
// not depend on how it is spread over GPUs, resolved once per estimate and
// reused for every layout tried.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "job/job.hpp"
#include "model/model.hpp"

namespace vramcalc {

struct Plan {
    std::shared_ptr<const Model> reheaded;  // the model with the job's head, when it is not the config's own
    const Model& m;                         // the model the job runs: *reheaded, or the one given
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
    // Parameters by how parallelism splits them: the token embedding, an untied head, the
    // routed experts (split over EP), and the rest (blocks' attention, norms, dense MLPs, shared
    // experts, routers, a vision tower); each also as trainable parameters.
    double embedding_params = 0, head_params = 0, expert_params = 0, dense_params = 0;
    double trainable_embedding = 0, trainable_head = 0, trainable_expert = 0, trainable_dense = 0;
    double linear_dense = 0, linear_expert = 0;  // weights of the blocks' linear layers (fp8 recipes convert these)
};

Plan make_plan(const Model& m, const Job& job);
double trainable_params(const Model& model, const Job& job);

}  // namespace vramcalc
