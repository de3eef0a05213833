#pragma once
// The logits and cross-entropy of a training step: what the loss keeps for
// backward and its peaks, per loss implementation.
#include "job/layout.hpp"
#include "job/plan.hpp"
#include "memory/parallel.hpp"

namespace vramcalc {

struct LossBuffers {
    double saved = 0;          // kept from the end of forward until its backward
    double forward_peak = 0;   // live while the loss is computed
    double backward_peak = 0;  // live while its gradient is computed
};
// On the pipeline's last stage only (where the head is), for one micro-batch.
LossBuffers loss_buffers(const Plan& p, const Layout& l, const Share& s);

}  // namespace vramcalc
