#pragma once
// A chart of memory against sequence length or batch around the current job (issue 23), for
// the model chosen by use_config. {"ok":true,"axis","units","x_label","y_label","plotted",
// "context_length","terms":[{key,label}],"points":[{"value","value_text","bytes":[per term],
// "total_bytes","total_text","plotted_bytes","plotted_text","clipped","fits","current"
// (+ "kv_needed_bytes","pool_bytes" under vLLM / SGLang)}],"current":{"value","plotted_bytes","label"},
// "capacity":{"bytes","text","label"}|null,"y":{"scale":"linear"|"log","min_bytes","max_bytes",
// "capped","ticks":[{bytes,text}]},"x":{"scale":"log2","ticks":[{value,text}]}} or the error shape.
#include <string>

#include "api/api.hpp"

namespace vramcalc {

std::string chart_current(const std::string& job_json, const std::string& axis);
// The same for a model and a read job (the answer's charts, api/answer.hpp); throws InputError.
std::string chart_for(const Model& model, const Job& job, const std::string& axis);

}  // namespace vramcalc
