#pragma once
// The compute of one training step on one GPU, op by op (the per-op roofline):
// the linear layers' GEMMs by shape, the attention kernel, the streaming ops
// (norms, activations, residuals, RoPE), the low-precision casts, the loss and
// the optimizer step, each timed by core/cluster/kernels.hpp.
#include <string>
#include <vector>

#include "cluster/dims.hpp"
#include "cluster/kernels.hpp"

namespace vramcalc {

struct StageShape {
    double tokens = 0;      // per micro-batch on this GPU: b · s / cp
    double seq = 0;         // attention context (the job's sequence)
    double tp = 1, pp = 1, cp = 1, ep = 1, dp = 1;
    int zero = 0;
    double microbatches = 1;
    const LowPrecision* recipe = nullptr;
    bool fused = false;     // torch.compile or Transformer Engine's fused kernels (norm + residual, SwiGLU, loss)
};

struct Op {
    const char* key;     // "linear", "head", "attention", "recompute", "elementwise", "casts", "loss", "optimizer"
    std::string label;
    double flops = 0;    // executed, per step on this GPU
    double bytes = 0;    // streamed, per step on this GPU
    double time_s = 0;   // per step
    std::string why;
};

struct StepCompute {
    std::vector<Op> ops;      // per step, on the slowest (last) pipeline stage
    double forward_s = 0;     // one micro-batch's forward on that stage (F)
    double backward_s = 0;    // its backward, input and weight gradients (B)
    double weight_grad_s = 0; // the weight-gradient GEMMs within B (W, for zero-bubble schedules)
    double optimizer_s = 0;   // once per step
    double total_s = 0;       // m · (F + B) + optimizer
};

StepCompute step_compute(const Model& model, const Job& job, const Dims& d, const Rates& r, const StageShape& st);

}  // namespace vramcalc
