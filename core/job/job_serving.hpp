#pragma once
// The serving fields of a job (engines, their versions, multi-GPU splits and
// caches), read once when the job is parsed (core/job/job.cpp calls these).
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "job/job.hpp"

namespace vramcalc {

// One serving field into `job`; false for a key that is not one.
bool read_serving_field(Job& job, const std::string& key, const nlohmann::json& v, const std::string& field);
Engine engine_field(const nlohmann::json& v, const std::string& field);
// "auto" (null: the compute dtype) or a KV cache format; vLLM's names fp8_e4m3 / fp8_e5m2 are fp8.
const NumberFormat* kv_format(const nlohmann::json& v, const std::string& field);
// The user's GPU memory in GiB from a field in units of `gib_per_unit` GiB (1 for device_gib, 1e9 / 2^30
// for device_gb): 0 (none given) or 0.5 to 100,000 units.
double device_memory_field(const nlohmann::json& v, const std::string& field, double gib_per_unit);
// The serving fields' names, for the unknown-field error.
const char* serving_field_names();

}  // namespace vramcalc
