#pragma once
// Which GPUs hold the job, and the fewest of each that do when it is sharded.
#include <vector>

#include "memory.hpp"
#include "plan.hpp"

namespace vramcalc {

// Inference on n GPUs: tensor parallel inside an 8-GPU node, the largest degree
// dividing both n and the attention heads; the rest is pipeline stages.
int64_t inference_tp(const ModelConfig& c, int64_t n);

std::vector<GpuFit> fit_gpus(const Plan& p, const Layout& chosen, double per_gpu_total);

}  // namespace vramcalc
