#pragma once
// The serving parts of the estimate's JSON: the engine fields of the job echo
// and the engine's own figures (pool, each GPU's share, the profile run).
#include "answers/estimate.hpp"
#include "text/json_writer.hpp"

namespace vramcalc {

// Inside the job object: the serving fields, so presets in force show.
void write_serving_job_fields(JsonWriter& w, const Job& job);
// The "serving" object.
void write_serving(JsonWriter& w, const Job& job, const ServingInfo& s);

}  // namespace vramcalc
