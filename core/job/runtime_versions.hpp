#pragma once
// llama.cpp, Ollama and MLX by version, as data (issue 32), as vllm_versions.hpp does for vLLM: each entry
// covers the releases from its first to the next entry's and lists the job fields that release's defaults
// set, each with the file it was read from. parse_job resolves `llamacpp_version` / `ollama_version` /
// `mlx_version` once (default: the newest entry) and applies the entry's fields after the engine preset
// and before the user's.
#include <string>
#include <vector>

#include "job/job.hpp"
#include "job/presets.hpp"

namespace vramcalc {

struct RuntimeVersion {
    Engine engine;
    const char* first;   // the first release the entry covers: "0.15.5" (Ollama), "2025-12" (llama.cpp), "0.31"
    const char* label;   // "Ollama 0.15.5 – 0.29", shown in the output
    std::vector<PresetField> fields;
};

// The job field that names the engine's version ("llamacpp_version", ...); "" for other engines.
const char* runtime_version_field(Engine e);
// The entry for a version text of engine `e` ("0.15.5", "v0.6.7", "2025-08", "newest"); `resolved` receives the
// version as the output names it. Throws InputError(field) for text that is no version of it, or one before
// the first entry.
const RuntimeVersion& runtime_version_for(Engine e, const std::string& version, const std::string& field, std::string& resolved);
const std::vector<RuntimeVersion>& runtime_versions();

}  // namespace vramcalc
