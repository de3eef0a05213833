#pragma once
// The one answer's later parts (api/answer.hpp): what fits, the charts, the planner, the matrix and
// the quant ladder, each from the question's job on the question's machine (else on the GPU the
// verdict recommends, so every part names the same GPU).
#include "api/question.hpp"
#include "answers/estimate.hpp"
#include "text/json_writer.hpp"

namespace vramcalc {

// Writes the parts q.parts asks for besides the head into the open object. `e`: the job's estimate
// (explained), given when a part answers on the verdict's recommended GPU or beside the verdict.
void write_parts(JsonWriter& w, const Model& model, const Query& q, const Job& job, const Estimate* e);

}  // namespace vramcalc
