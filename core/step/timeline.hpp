#pragma once
// A step as a timeline of live tensors. Training: forward (with the loss),
// loss backward, layer backward, optimizer step; inference: one prefill.
// The peak phase gives the breakdown; the overhead of the chosen memory kind
// (allocator slack, CUDA context) is added on top of it.
#include "job/layout.hpp"
#include "memory/terms.hpp"
#include "job/plan.hpp"
#include "memory/parallel.hpp"
#include "posttrain/posttrain.hpp"
#include "serving/serving.hpp"

namespace vramcalc {

struct Step {
    Breakdown breakdown;  // at the peak, overhead included
    Timeline timeline;
    double allocated = 0, reserved = 0, device = 0, cpu = 0;
    double saved = 0;  // kept from forward to backward: blocks' saved tensors + the loss's
    double steady = 0; // allocated between steps: weights, optimizer states, gradients and persistent buffers
    ServingInfo serving;  // inference: the engine's pool, offload split and fit
    Share share;          // the GPU this step describes (its pipeline stage, its parameters)
    PostTrainInfo post;   // a post-training step's persistent part, phases and rollout (core/posttrain/)
};

// The job's step: a post-training job's (posttrain_step) or the model's own (model_step).
Step run_step(const Plan& p, const Layout& l, bool explain);
// Training (the peak pipeline stage) or inference, as the job's own mode runs it.
Step model_step(const Plan& p, const Layout& l, bool explain);
// A post-training step (core/step/posttrain_step.cpp): the policy's training step inside the
// rollout, scoring and critic phases, the persistent part in each.
Step posttrain_step(const Plan& p, const Layout& l, bool explain);

// Per-GPU memory at the peak only (numbers, no text): the hot path used for
// GPU fitting and sweeps.
Breakdown compute_breakdown(const Model& model, const Job& job, bool explain = false);

}  // namespace vramcalc
