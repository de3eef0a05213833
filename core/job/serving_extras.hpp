#pragma once
// Serving beside the model itself (issue 36), in the engines' own words: speculative decoding
// (vLLM speculative_model / num_speculative_tokens / speculative_method, SGLang's
// speculative_algorithm, llama.cpp -md / --draft-max), the adapter slots of multi-LoRA serving
// (vLLM --max-loras / --max-lora-rank / --max-cpu-loras, SGLang --max-loras-per-batch, llama.cpp
// --lora), and several jobs sharing one machine (`machine_jobs`). Read in
// core/job/serving_extras_fields.cpp; accounted in core/serving/speculative.cpp,
// core/serving/lora_slots.cpp and core/answers/colocation.cpp.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vramcalc {

struct Job;
struct Model;
struct NumberFormat;

// vLLM SpeculativeConfig.method: a separate draft model, EAGLE (1/2) or EAGLE-3 heads, the
// model's own multi-token-prediction layers, or n-gram prompt lookup (no weights, no KV).
enum class SpecMethod { None, Draft, Eagle, Eagle3, Mtp, Ngram };

struct Speculative {
    SpecMethod method = SpecMethod::None;
    std::string model;                       // speculative_model as given (a catalog id, Hub id or "inline config")
    std::shared_ptr<const Model> draft;      // the draft model or head's config, when one was given
    int64_t num_speculative_tokens = 0;      // tokens proposed per step (llama.cpp --draft-max; 0 = the engine's default)
    int64_t draft_vocab_size = 0;            // EAGLE-3's own head vocabulary (0: 32000, as its released heads)
    int64_t n_gpu_layers_draft = -1;         // llama.cpp -ngld (-1: every layer of the draft on the GPU)
    int64_t ctx_size_draft = 0;              // llama.cpp -cd (0: the target's context)
};

// The adapter slots an engine reserves for serving several LoRA adapters at once.
struct LoraServing {
    bool enable_lora = false;
    int64_t max_loras = 1;                   // vLLM --max-loras (1); SGLang --max-loras-per-batch (8)
    int64_t max_lora_rank = 16;              // vLLM --max-lora-rank (16)
    int64_t max_cpu_loras = 0;               // vLLM --max-cpu-loras: adapters cached in host RAM (0 = max_loras)
    bool max_loras_given = false;            // else the engine's default (SGLang: 8)
};

// One more job on the same machine: an ordinary job (its own model, engine and share).
struct MachineJob {
    std::string label;                       // the model as given ("bge-m3"), for the answer
    std::shared_ptr<const Model> model;
    std::shared_ptr<const Job> job;
};

// The share of the whole GPU an engine takes at start (vLLM's gpu_memory_utilization, SGLang's
// mem_fraction_static; 0 for engines that take what they need), and the field that sets it in `name`.
double gpu_share(const Job& job, const char*& name);

// How a field that names a model (speculative_model, machine_jobs[i].model) becomes one: an
// object is a config.json; a string is looked up by the resolver the API installs with the
// catalog (core/api/catalog.cpp use_catalog). Throws InputError(field) when it names no model.
using ModelResolver = std::function<std::shared_ptr<const Model>(const nlohmann::json& ref, const std::string& field)>;
void set_model_resolver(ModelResolver resolver);
std::shared_ptr<const Model> resolve_model_ref(const nlohmann::json& ref, const std::string& field);

}  // namespace vramcalc
