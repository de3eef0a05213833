#pragma once
// Curves and tables for the page's charts, each from one core call on the
// numbers-only path (compute_breakdown(model, job, false)), for the model
// chosen by use_config (see api.hpp).
#include <string>
#include <vector>

#include "answers/estimate.hpp"

namespace vramcalc {

// Memory per term while one job field takes each of `values_json` (a JSON
// array of whole numbers). axis: "seq", "batch" or "lora_rank".
// {"ok":true,"axis":..,"terms":[{key,label}],"points":[{"value","bytes":[per term],
// "total_bytes","total_text"}]} or {"ok":false,"error":{field,message}}.
std::string sweep_json(const std::string& job_json, const std::string& axis, const std::string& values_json);

// The same sweep as numbers, for the page's charts (no number is printed and
// parsed again): `numbers` holds one row per value, kSweepColumns wide (the
// value, each term's bytes in term order, the total); `header` is
// {"ok":true,"axis","columns","terms":[{key,label}],"total_texts":[per row]}
// or the error answer (numbers then empty). Valid until the next call.
constexpr int kSweepColumns = kTermCount + 2;
struct SweepTable {
    std::string header;
    std::vector<double> numbers;
};
const SweepTable& sweep_table(const std::string& job_json, const std::string& axis, const std::string& values_json);

// Total per GPU for every weight format × mode with the rest of the job kept:
// {"ok":true,"current_dtype":"bf16","modes":[..],"rows":[{"dtype","label","cells":[{"total_bytes","total_text"} | {"error"}]}]}
// (current_dtype: the row the job's weights are in, dtype auto resolved; "" when the checkpoint's own format rules).
std::string matrix_json(const std::string& job_json);
std::string matrix_for(const Model& model, const std::string& job_json);  // the same for a model

// 1, 2, 2.5 or 5 × 10^k: the step that gives about five marks up to max_value.
double axis_step(double max_value);

// Round axis marks from 0 to at least max_bytes: [{"bytes","text"}] ("0 GB", "20 GB", ..., "1.5 TB").
std::string ticks_json(double max_bytes);

}  // namespace vramcalc
