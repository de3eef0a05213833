#pragma once
// Model states: weights, gradients and optimizer states, per GPU, each with
// the sentence that explains it; and the buffers a training step adds around
// them (gathered shards, optimizer temporaries, autocast copies).
#include <string>

#include "job/layout.hpp"
#include "job/plan.hpp"
#include "memory/parallel.hpp"

namespace vramcalc {

// Each term is this GPU's: its share `s` of the model (memory/parallel.hpp), sharded by ZeRO.
// Bytes of one weight as stored: the base format for inference and adapters,
// the trained dtype (fp32 under autocast) for full training.
double weights_term(const Plan& p, const Layout& l, const Share& s, std::string* why);
// Unsharded weights in the job's format: the "raw weights" ratios refer to.
double base_weights_bytes(const Plan& p, std::string* why);
// Every trainable parameter's gradient, as after a full backward.
double gradients_term(const Plan& p, const Layout& l, const Share& s, std::string* why);
// Optimizer states (+ fp32 master weights), on the GPU.
double optimizer_term(const Plan& p, const Layout& l, const Share& s, std::string* why);
// The fp32 master weights' part of optimizer_term on this GPU (0 without a master copy or when
// the optimizer steps on the CPU): the answer splits "optimizer m + v" from it (issue 23).
double master_weights_term(const Plan& p, const Layout& l, const Share& s);

struct StepBuffers {
    double grads_in_forward = 0;   // gradients already live during forward (accumulation, persistent grad buffers)
    double grads_at_end = 0;       // gradients live when backward ends (one tensor's with the optimizer in backward)
    double head_grad = 0;          // the output projection's gradient, from the loss backward on
    double cached_load = 0;        // reserved but free after loading unsharded weights (FSDP sync_module_states)
    double optimizer_temp = 0;     // foreach AdamW: a full-size temporary during the step
    CommBuffers comm;              // the sharding implementation's buffers (FSDP / ZeRO gathers, reduce buffers)
    double autocast_copies = 0;    // autocast: 16-bit copies of fp32 weights, saved for backward
    double dequantized = 0;        // QLoRA: the largest weight dequantized to 16 bits during its matmul
    double paged = 0;              // paged optimizer states (unified memory, outside torch's accounting)
    double cpu = 0;                // CPU RAM for offloaded states, parameters and activations
};
StepBuffers step_buffers(const Plan& p, const Layout& l, const Share& s, double optimizer_on_gpu, double offloaded_activations);
// The optimizer steps in CPU memory (ZeRO-Offload, FSDP CPU offload): its states, the fp32
// master weights and the gradients it reads live there, not on the GPU.
inline bool optimizer_on_cpu(const Job& job) { return job.offload_optimizer || job.offload_params; }

}  // namespace vramcalc
