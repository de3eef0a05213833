#pragma once
// The estimate: a job (what you want to run) applied to a model gives a per-GPU
// breakdown (memory/terms.hpp) at the peak of the step's timeline
// (step/timeline.hpp), with the parameter counts, the notes under the
// breakdown and the table of GPUs that hold it. Each term has one function
// holding its formula and, next to it, the sentence that explains it
// (memory/, serving/).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "answers/colocation.hpp"
#include "job/layout.hpp"
#include "local/local.hpp"
#include "job/plan.hpp"
#include "memory/activations.hpp"
#include "memory/terms.hpp"
#include "posttrain/posttrain.hpp"
#include "serving/serving_info.hpp"

namespace vramcalc {

// Where the weights figure comes from: the job's format, the config's
// quantization_config (dtype auto), or exact checkpoint metadata (dtype auto).
enum class WeightsSource { Job, QuantizationConfig, Exact };
inline const char* weights_source_name(WeightsSource s) {
    return s == WeightsSource::Exact ? "exact" : s == WeightsSource::QuantizationConfig ? "quantization_config" : "job";
}

struct GpuFit {
    const char* id;    // from the static GPU catalog
    const char* name;
    double capacity_bytes;
    bool fits_as_configured;  // this job's per-GPU total fits one of these
    int64_t gpus_needed;      // smallest sharded count that fits; 0 = never (see note)
    bool custom = false;      // id "custom": the job's device_gib (a GPU not in the catalog), listed last
    int64_t ep = 0;           // training an MoE: the expert-parallel degree at gpus_needed (0: the job's own)
};

// Views in the user's words (core/answers/views.cpp).
struct ViewRow {
    const char* key;    // weights, gradients, optimizer_moments, master_weights, activations, logits, buffers, overhead
    const char* label;  // "Weights", "Optimizer m + v", "fp32 master weights", ...
    double bytes = 0;
    std::string text;   // in the job's unit
    std::string why;
};
struct TrainingView {
    const char* key;    // "classic" or "peak"
    const char* label;
    std::vector<ViewRow> rows;
    double total = 0;
    std::string total_text, text;
};
struct ServingView {
    bool pooled = false;            // vLLM / SGLang: a KV pool the engine sizes
    int64_t users = 0, context = 0; // batch × seq
    double kv_needed = 0, pool_bytes = 0;
    int64_t pool_tokens = 0;
    int64_t users_at_context = 0;   // requests of `context` tokens the pool holds at once
    bool fits = false;
    std::string text;               // "needs 51.54 GB of KV for 16 users × 32,768 tokens; the pool holds …; fits"
    std::string detail;             // the same without its closing "fits" / "does not fit" (the verdict says that)
    // What the users need (issue 33), the headline under vLLM / SGLang: the engine's fixed parts (weights,
    // its profile run's activations, CUDA graphs, memory outside torch) + the KV of users × context, per GPU;
    // the breakdown's total is instead what the engine takes of the GPU (its budget, the pool filling it).
    double need = 0;
    std::string need_why;           // "weights 61.03 GB + KV for 16 users × 32,768 tokens 51.54 GB + … = 118.8 GB"
    std::string engine_text;        // the engine's own view: its budget and its pool, never the GPU's capacity
};
// A GPU (and count) the answer recommends when the user's own does not hold the job, or when
// none is given (core/answers/verdict.cpp): the fewest GPUs of the pool that hold it with at
// least 10 % headroom, the smaller GPU among equal counts.
struct Recommendation {
    bool found = false;
    std::string gpu_id, gpu_name, pool;  // pool: which GPUs it was drawn from ("datacenter", "any", ...)
    int64_t gpus = 0;
    std::string layout;                  // "ZeRO-3 / FSDP", "TP 2 × PP 1", "" on one GPU
    double per_gpu_bytes = 0, capacity_bytes = 0;
    bool tight = false;                  // no GPU of the pool leaves 10 % free: the closest one, said so
    std::string text;                    // "3 × H100 80GB (ZeRO-3 / FSDP), 66.20 GB each (78 %), 18.74 GB free"
};

// The one verdict for the user's GPUs (the job's gpu or device memory, and its gpus), with the
// numbers behind its sentence; or, with no GPU given, the headline and a recommendation.
struct Verdict {
    const char* status = "none";  // fits | tight (under 10 % headroom) | partial (llama.cpp -ngl) | no | none (no GPU given)
    std::string symbol;           // ✓ ! ◐ ✗
    std::string text;             // the sentence
    std::string gpu_id, gpu_name; // the catalog id or "custom"; "" when none is given
    int64_t gpus = 1;
    double capacity_bytes = 0;    // what the test compares against: one GPU's usable memory, or an engine's KV pool
    double used_bytes = 0;        // per GPU (engines with a pool: the KV the requests need)
    double used_share = 0, headroom_share = 0;
    std::string capacity_source;  // where the GPU's usable figure comes from
    int64_t needs_gpus = 0;       // not fitting: the fewest of the user's GPU that hold it (the GPU table's count)
    std::string needs_layout;
    double needs_per_gpu_bytes = 0;
    int64_t gpu_layers = -1, layers = 0;  // llama.cpp / Ollama: layers the GPU takes (partial offload)
    double cpu_bytes = 0;         // llama.cpp: what stays in system RAM
    std::string headline;         // no GPU given: "708.92 GB in all → 3 × B300 288GB (TP 1 × PP 3), 236 GB each, …"
    Recommendation recommendation;
};

// A post-training job's largest completion length and most completions per prompt on the user's
// GPU (core/answers/inverse.cpp, questions max_completion_length and max_num_generations).
struct PostLimit {
    const char* question = "";
    bool found = false;
    int64_t value = 0;
    double total_at = 0;
    std::string text, answer_label;
};

struct Estimate {
    ParamCounts params;
    double trainable_params = 0;
    Layout layout;
    Breakdown breakdown;                 // at the peak, with the overhead of the chosen memory kind
    Timeline timeline;                   // training only
    BlockActivations layer;              // one block's saved tensors (training)
    double allocated_bytes = 0, reserved_bytes = 0, device_bytes = 0;  // the peak as each kind counts it
    double activations_saved_bytes = 0;  // every block's saved tensors + the loss's, at the end of forward
    double model_states_bytes = 0;       // weights + all gradients + optimizer states per GPU, as after a full backward
    double steady_bytes = 0;             // allocated after the optimizer step (torch.cuda.memory_allocated between steps)
    double cpu_bytes = 0;                // CPU RAM for offloaded states, parameters and activations
    double weights_reference_bytes = 0;  // unsharded weights in the job's format: the "raw weights"
    double ratio_to_weights = 0;         // total per GPU × GPUs holding a copy of the model / raw weights
    std::string weight_format_label;
    WeightsSource weights_source = WeightsSource::Job;
    std::vector<std::string> notes;
    std::vector<GpuFit> fits;
    ServingInfo serving;                 // inference: engine pool, offload split, fit on the chosen GPU
    Share share;                         // the GPU described (training: its pipeline stage and parameters)
    Verdict verdict;                     // the user's GPUs (explain only)
    std::vector<TrainingView> training_views;  // classic count and the peak (training, explain only)
    ServingView serving_view;            // the requests' KV against the pool (inference, explain only)
    LocalAnswer local;                   // llama.cpp / Ollama / MLX: both pools, the speed (explain only)
    LaunchCommand command;               // the line that runs this layout (local runtimes, vLLM, SGLang; explain only)
    int64_t context = 0;                 // the context the runtime allocates (llama.cpp -c 0 / --fit, Ollama's tier)
    int64_t n_cpu_moe = 0, gpu_layers = -1;  // llama.cpp: as run (--fit may choose them)
    PostTrainInfo post;                  // a post-training job's persistent part, phases and rollout (core/posttrain/)
    std::vector<PostLimit> post_limits;  // its inverse answers on the user's GPU (explain only)
    ColocationAnswer colocation;            // the jobs sharing its GPU (job.machine_jobs; explain only)
};

// Breakdown, timeline, ratio and the GPU fit table; with `explain`, also the
// explanation of every term and the notes.
Estimate estimate(const Model& model, const Job& job, bool explain = true);

}  // namespace vramcalc
