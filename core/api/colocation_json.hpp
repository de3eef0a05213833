#pragma once
// The "colocation" object of an estimate with machine_jobs (issue 36): one verdict for the shared GPU
// and each job's figures (docs/serving.md, "Several models on one GPU").
#include "answers/estimate.hpp"
#include "text/json_writer.hpp"

namespace vramcalc {

void write_colocation(JsonWriter& w, const ColocationAnswer& a);

}  // namespace vramcalc
