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

#include "job/layout.hpp"
#include "job/plan.hpp"
#include "memory/activations.hpp"
#include "memory/terms.hpp"
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
};

// Breakdown, timeline, ratio and the GPU fit table; with `explain`, also the
// explanation of every term and the notes.
Estimate estimate(const Model& model, const Job& job, bool explain = true);

}  // namespace vramcalc
