#pragma once
// The post-training parts of the estimate's JSON (issue 36): the new job fields in the job echo,
// and the "posttrain" object: the persistent part, the phases with their parts, the peak, the
// rollout engine awake and asleep, host RAM and the inverse answers. docs/posttrain.md lists them.
#include "answers/estimate.hpp"
#include "text/json_writer.hpp"

namespace vramcalc {

// Inside the job object: the post-training fields and the serving extras (speculative decoding, LoRA slots).
void write_posttrain_job_fields(JsonWriter& w, const Job& job);
// The "posttrain" object of a post-training job's estimate.
void write_posttrain(JsonWriter& w, const Job& job, const Estimate& e);
// options().field_modes: the fields that apply to some modes only, each with its modes (the page sends them for
// those modes only).
void write_field_modes(JsonWriter& w);

}  // namespace vramcalc
