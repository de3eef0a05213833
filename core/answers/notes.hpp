#pragma once
// The sentences under the breakdown: what the numbers mean for this job.
#include <string>
#include <vector>

#include "answers/estimate.hpp"
#include "job/plan.hpp"

namespace vramcalc {

std::vector<std::string> notes_for(const Plan& plan, const Estimate& e);

}  // namespace vramcalc
