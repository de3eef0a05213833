#pragma once
// One verdict for the user's GPUs (issue 23): fits / tight (under 10 % headroom) / partial
// (llama.cpp -ngl) / does not fit, in one sentence, from the same machinery as the GPU table
// (answers/fit.cpp) and the fewest-GPUs answer (answers/inverse.cpp), so the three agree:
// the per-GPU total the breakdown shows, each engine's own pool test, and the table's count.
#include <string>

#include "answers/estimate.hpp"

namespace vramcalc {

// Headroom under which a fit is "tight": less than 10 % of the GPU (or of an engine's KV pool) free.
constexpr double kTightHeadroom = 0.10;

// The verdict for the job's own GPUs (gpu or device_gib / device_gb, and gpus) given its
// estimate `e` (breakdown, serving figures and GPU table filled); with no GPU given, the
// headline and a recommendation from job.recommend_from.
Verdict verdict_for(const Plan& plan, const Estimate& e);

// The user's GPU in words: the catalog name, "GPU of 24.00 GB" for a size, "" for none.
std::string gpu_name_of(const Job& job);

}  // namespace vramcalc
