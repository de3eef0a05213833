#pragma once
// The pieces of the planner's answer (answer.cpp, answer_train.cpp): shared texts and the ranges.
#include <string>
#include <vector>

#include "cluster/calibration.hpp"
#include "cluster/cluster.hpp"
#include "text/json_writer.hpp"

namespace vramcalc {

// "TP 2 × PP 1 × DP 4, ZeRO-3/FSDP, 1 micro-batch"
std::string layout_text(const Parallel& p);
// A layout the request gave, checked against the model and the GPU count, with dp and micro-batches derived.
Parallel checked_layout(const Model& model, const Job& job, const ClusterRequest& r);

// A figure and its range from the cross-validated residuals (calibration.hpp): a rate is measured ÷ predicted
// in [1 + lo, 1 + hi], so a rate's range is [v (1 + lo), v (1 + hi)] and a time's [t ÷ (1 + hi), t ÷ (1 + lo)].
struct Ranged {
    double v = 0, lo = 0, hi = 0;
};
Ranged rate_range(double v, const RateRange& r);
Ranged time_range(double t, const RateRange& r);
void write_range(JsonWriter& w, const char* key, const Ranged& r);
// "Ranges: measured runs fell within them for 48 of 60 training rows under leave-one-source-out cross-validation."
std::string range_note(const RateRange& r, const char* workload);

// The training part of the answer: "train" and "recommendation", and its notes.
void write_training(JsonWriter& w, const Model& model, const Job& job, const ClusterRequest& r, std::vector<std::string>& notes);

}  // namespace vramcalc
