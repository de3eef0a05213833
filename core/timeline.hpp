#pragma once
// A step as a timeline of live tensors. Training: forward (with the loss),
// loss backward, layer backward, optimizer step; inference: one prefill.
// The peak phase gives the breakdown; the overhead of the chosen memory kind
// (allocator slack, CUDA context) is added on top of it.
#include "layout.hpp"
#include "memory.hpp"
#include "plan.hpp"
#include "serving.hpp"

namespace vramcalc {

struct Step {
    Breakdown breakdown;  // at the peak, overhead included
    Timeline timeline;
    double allocated = 0, reserved = 0, device = 0, cpu = 0;
    double saved = 0;  // kept from forward to backward: blocks' saved tensors + the loss's
    ServingInfo serving;  // inference: the engine's pool, offload split and fit
};

Step run_step(const Plan& p, const Layout& l, bool explain);

}  // namespace vramcalc
