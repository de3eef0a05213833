#pragma once
// The answer in the user's words (issue 23): the training breakdown as the classic explanation
// counts it (every model state at once + the saved activations) next to the step's peak, with
// the optimizer's m + v split from the fp32 master copy; and, under vLLM / SGLang, the KV the
// requests need against the pool the engine leaves, in one unit.
#include <string>
#include <vector>

#include "answers/estimate.hpp"

namespace vramcalc {

// Both views of a training job (empty for inference), from the estimate's own terms.
std::vector<TrainingView> training_views(const Plan& p, const Estimate& e);

// The requests' KV against the pool; with the breakdown `b`, also what the users need (ServingView::need)
// and the engine's own view of its budget and pool.
ServingView serving_view(const Job& job, const ServingInfo& s, const Breakdown* b = nullptr);

}  // namespace vramcalc
