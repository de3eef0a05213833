#pragma once
// The page's entry points (issue 23) as JSON: the four intents' fields, and the quantization
// ladder "Run locally" leads with.
#include <string>

#include "api/api.hpp"

namespace vramcalc {

// {"intents":[{"id","label","question","view","recipe","job":{field: value},"job_sources":{field: source},
// "variants":[{"models","recipe","job","job_sources"}],"cluster":{...},"cluster_sources":{...}}]}: each
// intent's fields, and the variant that goes over them for each kind of model (core/job/intents.hpp). The
// answer (api/answer.hpp) applies them: the page sends the intent's id, never its fields.
std::string intents_json();

// {"ok":true,"units","gpu":"RTX 3060 12GB"|"","rungs":[{"dtype","label","file_bytes","file_text",
// "total_bytes","total_text","status","gpu_layers","layers","gpu_bytes","gpu_text","cpu_bytes",
// "cpu_text","text"}]} for the job on llama.cpp (engine llamacpp unless the job names ollama).
std::string ladder_for(const Model& model, const std::string& job_json);
std::string ladder_current(const std::string& job_json);

}  // namespace vramcalc
