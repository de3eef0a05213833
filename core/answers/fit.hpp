#pragma once
// Which GPUs hold the job, and the fewest of each that do when it is sharded.
#include <vector>

#include "answers/estimate.hpp"
#include "job/plan.hpp"

namespace vramcalc {

std::vector<GpuFit> fit_gpus(const Plan& p, const Layout& chosen, double per_gpu_total);

}  // namespace vramcalc
