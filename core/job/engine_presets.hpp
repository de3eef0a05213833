#pragma once
// Inference engines as data: the job fields each engine's defaults set, with
// the code each was read from. Applied by parse_job after a framework preset
// and before the user's own fields.
#include <vector>

#include "job/job.hpp"
#include "job/presets.hpp"

namespace vramcalc {

struct EnginePreset {
    Engine engine;
    const char* label;
    std::vector<PresetField> fields;
};

const EnginePreset& engine_preset(Engine engine);
const std::vector<EnginePreset>& all_engine_presets();

}  // namespace vramcalc
