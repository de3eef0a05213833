#pragma once
// vLLM by version, as data: each entry covers the releases from its first
// version to the next entry's, and lists the job fields that version's
// defaults and memory accounting set, each with the code it was read from.
// parse_job resolves `vllm_version` once (default: the newest entry) and
// applies the entry's fields after the engine preset and before the user's.
#include <string>
#include <vector>

#include "job/job.hpp"
#include "job/presets.hpp"

namespace vramcalc {

struct VllmVersionPreset {
    int major, minor, patch;        // the first release the entry covers
    const char* label;              // "vLLM 0.17 – 0.20", shown in the output
    VllmEngine engine;              // the engine this release runs by default
    bool has_v0, has_v1;            // which engines the release ships
    std::vector<PresetField> fields;  // both engines
    std::vector<PresetField> v0;      // the V0 engine's (worker/worker.py)
    std::vector<PresetField> v1;      // the V1 engine's (v1/worker/gpu_worker.py)
};

// The entry for a version text ("0.19.0", "v0.6.5.post1", "0.15.2rc1", "newest"); `resolved`
// receives the version as the output names it. Throws InputError(field) for text that is no
// version, or one before 0.2.
const VllmVersionPreset& vllm_preset_for(const std::string& version, const std::string& field, std::string& resolved);
const std::vector<VllmVersionPreset>& vllm_presets();

}  // namespace vramcalc
