#pragma once
// Recipes as data: each framework preset is a list of job fields, written as
// JSON values and applied by parse_job before the user's own fields, with the
// code each default was read from.
#include <vector>

#include "job/job.hpp"

namespace vramcalc {

struct PresetField {
    const char* key;     // job field
    const char* value;   // its JSON value
    const char* source;  // repository, file and function the default comes from
};

struct Preset {
    Framework framework;
    const char* label;
    std::vector<PresetField> fields;
};

const Preset& preset_of(Framework framework);
const std::vector<Preset>& all_presets();

// Defaults that come with a mode whatever the framework (applied after the
// framework's preset, where it does not set the field, and before the user's
// fields): QLoRA recipes checkpoint activations.
const std::vector<PresetField>& mode_defaults(Mode mode);

}  // namespace vramcalc
