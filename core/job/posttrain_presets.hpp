#pragma once
// Post-training frameworks as data (issue 36): for each framework and post-training mode, the
// job fields its defaults set, each with the file it was read from. parse_job applies them after
// the framework's own preset (core/job/presets.cpp) and before the user's fields.
#include <vector>

#include "job/job.hpp"
#include "job/presets.hpp"

namespace vramcalc {

// The defaults of `mode` under `framework` (TRL's for every framework that trains with TRL's
// trainers: custom, hf, accelerate_fsdp, deepspeed, trl; verl's, OpenRLHF's and Unsloth's
// own). Empty for PostMode::None. Throws InputError("job.framework") for a pair that framework
// does not run (verl and OpenRLHF train RL modes; OpenRLHF also DPO).
const std::vector<PresetField>& posttrain_defaults(Framework framework, PostMode mode);
const char* posttrain_preset_label(Framework framework, PostMode mode);

}  // namespace vramcalc
