#pragma once
// One GPU of a training layout: which pipeline stage it runs, the parameters it
// holds (after tensor, pipeline and expert parallelism, before ZeRO/FSDP shards
// them over the data-parallel ranks), how many micro-batches' activations it
// keeps at once under the pipeline schedule, and the communication buffers its
// sharding implementation (FSDP2, FSDP1, DeepSpeed, Megatron) adds around a step.
#include <string>

#include "job/layout.hpp"
#include "job/plan.hpp"

namespace vramcalc {

struct Share {
    int64_t stage = 0, stages = 1;  // this GPU's pipeline stage (0 = first) of `stages`
    bool first = true, last = true; // holds the embedding / the output head and the loss
    double layers = 0;              // blocks on this stage
    double mtp = 0;                 // multi-token prediction layers on this stage (the last), beside its blocks
    double microbatches = 1;        // per optimizer step (grad_accum; under PP at least pp)
    double in_flight = 1;           // micro-batches of this stage's activations alive at its peak
    // Parameters on this GPU before ZeRO/FSDP, by how they shard: `dense` (blocks, norms,
    // embedding and head, ÷ TP) over `dense_dp` = DP × CP ranks; routed `experts` (÷ EP × ETP)
    // over `expert_dp` = GPUs / (EP × ETP × PP) ranks.
    double dense = 0, experts = 0;
    double trainable_dense = 0, trainable_experts = 0;
    double dense_dp = 1, expert_dp = 1;
    double unit = 0;                // one block's parameters on this GPU (an FSDP unit), before sharding
    double head = 0, embedding = 0; // the head's and the embedding's parameters on this GPU (0 when not on this stage)
    double model_params = 0;        // the whole model's parameters (for fractions)
    bool uniform = false;           // inference: every GPU holds 1/(TP × PP) of everything
};

// The share of stage `stage` (0 ≤ stage < l.pp) of a training layout.
Share share_of(const Plan& p, const Layout& l, int64_t stage);
// Inference: the weights split evenly over TP × PP (serving/serving.cpp lays stages out itself).
Share uniform_share(const Plan& p, const Layout& l);

// Parameters (trainable ones when `trainable`) this GPU keeps after sharding: each group
// divided by its data-parallel degree when the ZeRO stage is at least `zero_needed`.
double held_params(const Share& s, const Layout& l, bool trainable, int zero_needed);

// "stage 1 of 4 (8 of 32 layers, the embedding), ÷ TP 2, ZeRO-3 over 16 = 3.21 GB per GPU",
// or "" when nothing is divided.
std::string share_text(const Share& s, const Layout& l, int zero_needed, double per_gpu);

// Memory the sharding implementation adds around a step, per GPU, beside the sharded states.
struct CommBuffers {
    double forward = 0;          // gathered parameters live during a block's forward (current + prefetched)
    double backward = 0;         // gathered parameters, unsharded gradients and reduce buffers during a block's backward
    double head_kept = 0;        // a unit kept unsharded from its forward to its backward (torchtitan's [norm, output])
    double head_backward = 0;    // during the loss backward: the head gathered (again), its unsharded gradient and reduce buffer
    double stage_unsharded = 0;  // every parameter of the stage kept gathered across micro-batches (FSDP under PP)
    double accumulated = 0;      // unsharded gradients accumulated across micro-batches before one reduce-scatter
    double bucket = 0;           // DeepSpeed's gradient reduce bucket(s), allocated once
    double side_pools = 0;       // cached by the allocator in the communication streams' own pools (reserved, not allocated)
    // Around one block, from context, expert and tensor parallelism and fp8 (each 0 when off):
    double ring_forward = 0;     // CP: the whole sequence's K and V gathered for one layer's attention
    double ring_backward = 0;    // CP: gathered again in backward, with fp32 dq/dk/dv accumulators and the rotating dK/dV
    double dispatch = 0;         // EP: a MoE layer's routed tokens permuted and received by the all-to-all (and back)
    double persistent = 0;       // async-TP symmetric-memory workspace; Transformer Engine's cached fp8 weights
};
CommBuffers comm_buffers(const Plan& p, const Layout& l, const Share& s);

}  // namespace vramcalc
