#pragma once
// The model dimensions the cluster planner's FLOP and traffic formulas use,
// read once from the prepared model.
#include "answers/estimate.hpp"

namespace vramcalc {

struct Dims {
    double layers = 0, hidden = 0, heads = 0;
    double qk_dim = 0, v_dim = 0;    // per head, for the attention-score FLOPs
    double kv_width = 0;             // K+V (or MLA latent) elements per token per layer
    double kv_heads = 1;             // heads the K/V split over under tensor parallelism
    double moe_layers = 0, experts = 0, experts_per_token = 0;
    double matmul_params = 0;        // active parameters that take part in a matmul (input embedding excluded)
    double routed_params = 0;        // all routed-expert parameters (memory, expert-parallel gradients)
    double total_params = 0;
    double act_bytes = 2;            // bytes per activation element (compute dtype)
};

// Throws InputError naming config.<field> when a num_parameters-only config lacks a dimension.
Dims dims_of(const Model& model, const Job& job);

// Bytes per element of the job's compute dtype (bf16/fp16 2, fp32 4; quantized weights compute in bf16).
double compute_bytes(const Job& job);

}  // namespace vramcalc
