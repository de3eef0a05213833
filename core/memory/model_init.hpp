#pragma once
// Model initialisation that leaves memory reserved before training starts,
// replayed through the caching allocator (core/allocator.hpp). The caching
// allocator never gives segments back on its own (no empty_cache), so what
// init reserved is a floor under the training step's reserved memory.
#include "job/plan.hpp"

namespace vramcalc {

struct InitReplay {
    double peak_allocated = 0;  // the most live bytes during init
    double allocated = 0;       // live when init ends (the model)
    double reserved = 0;        // held by the caching allocator when init ends
};

// Zero unless job.model_init asks for a replay. Memoised per model shape and
// adapter set (a replay is thousands of allocations; the step calls this for
// every layout it tries).
InitReplay model_init_replay(const Plan& p);

}  // namespace vramcalc
