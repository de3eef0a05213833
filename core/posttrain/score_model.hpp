#pragma once
// A scoring model beside the policy (PPO's reward model, TRL's value model): the policy's backbone with a one-output
// head (transformers AutoModelForSequenceClassification / TokenClassification, num_labels = 1) in place of its LM
// head. A tied head has no parameters of its own (head_params 0): the score head adds h.
#include "job/plan.hpp"

namespace vramcalc {

inline double score_model_params(const Plan& policy) {
    return policy.m.params.total - policy.head_params + static_cast<double>(policy.m.config.hidden);
}

}  // namespace vramcalc
