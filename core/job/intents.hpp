#pragma once
// The page's four entry points as data (issue 23): each a named set of job fields (and, for
// pre-training, cluster fields) that the page writes into its state, every value cited. The
// user edits any of them afterwards: an intent is a starting point, not a mode of its own.
#include <vector>

#include "job/presets.hpp"

namespace vramcalc {

struct Intent {
    const char* id;           // run_locally, serve, fine_tune, pretrain
    const char* label;        // "Run locally"
    const char* question;     // what it answers, in the user's words
    std::vector<PresetField> job;      // job fields, as JSON values
    std::vector<PresetField> cluster;  // cluster planner fields (pretrain)
    const char* view;         // what the page leads with: "ladder", "serving", "verdict", "cluster"
};

const std::vector<Intent>& intents();
// Issue 36: the post-training entry point, kept apart from the four until the page shows it
// (core/api/intents.cpp writes it under "post_train").
const std::vector<Intent>& posttrain_intents();

}  // namespace vramcalc
