#pragma once
// The memory model: a job (what you want to run) applied to a model gives a
// per-GPU breakdown. Each term has one function holding its formula and,
// next to it, the sentence that explains it.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "config.hpp"
#include "formats.hpp"
#include "params.hpp"

namespace vramcalc {

enum class Mode { Inference, Train, LoRA, QLoRA };
enum class Optimizer { AdamW, SGD, SGDMomentum, Adam8bit, Adafactor };
enum class Checkpointing { None, Selective, Full };

struct Job {
    Mode mode = Mode::Inference;
    std::string dtype = "bf16";        // weight format; for QLoRA a float dtype means "NF4 base, this compute dtype"
    Optimizer optimizer = Optimizer::AdamW;
    int64_t batch = 1;                 // micro-batch per GPU (per replica for inference)
    int64_t seq = 4096;                // tokens per sequence (prompt + generated for inference)
    Checkpointing checkpointing = Checkpointing::None;
    bool flash_attention = true;
    std::string kv_dtype = "auto";     // auto = the compute dtype
    int64_t lora_rank = 16;
    std::string lora_targets = "all-linear";
    std::string adapter_dtype = "fp32";  // PEFT keeps adapters in fp32 by default
    bool master_weights = true;        // fp32 master copy under fp16/bf16 mixed precision
    int64_t gpus = 1;
    int64_t tp = 0;                    // 0 = automatic (inference: all GPUs; training: 1)
    int64_t pp = 1;
    int zero = 0;                      // ZeRO stage / FSDP: 0 none, 1 optimizer, 2 +gradients, 3 +weights
    double overhead_gb = 1.0;          // CUDA context, cuBLAS workspace, framework buffers per GPU
    double fragmentation = 0.05;       // allocator slack as a fraction of tensor memory
};

// Reads a job from JSON; absent fields keep their defaults. Throws InputError("job.<field>").
Job parse_job(const nlohmann::json& job);
const char* mode_name(Mode mode);
const char* optimizer_name(Optimizer optimizer);
const char* checkpointing_name(Checkpointing c);
// The names parse_job accepts for mode, optimizer and checkpointing.
std::vector<const char*> mode_names();
std::vector<const char*> optimizer_names();
std::vector<const char*> checkpointing_names();

// A model prepared once: config, tensors and counts.
struct Model {
    ModelConfig config;
    std::vector<Tensor> tensors;
    ParamCounts params;
};
Model prepare_model(const ModelConfig& config);

struct Layout {
    int64_t gpus = 1, dp = 1, tp = 1, pp = 1;
    int zero = 0;
};

enum TermIndex { kWeights, kGradients, kOptimizer, kActivations, kKvCache, kOverhead, kTermCount };
const char* term_key(int term);    // "weights", "gradients", ...
const char* term_label(int term);  // "Weights", "Gradients", ...

struct Breakdown {
    std::array<double, kTermCount> bytes{};        // per GPU
    std::array<std::string, kTermCount> why{};     // filled only when explanations are asked for
    double total() const;
};

struct GpuFit {
    const char* id;    // from the static GPU catalog
    const char* name;
    double capacity_bytes;
    bool fits_as_configured;  // this job's per-GPU total fits one of these
    int64_t gpus_needed;      // smallest sharded count that fits; 0 = never (see note)
};

struct Estimate {
    ParamCounts params;
    double trainable_params = 0;
    Layout layout;
    Breakdown breakdown;
    double weights_reference_bytes = 0;  // unsharded weights in the job's format: the "raw weights"
    double ratio_to_weights = 0;         // total memory of all GPUs / raw weights
    std::string weight_format_label;
    std::vector<std::string> notes;
    std::vector<GpuFit> fits;
};

// Per-GPU memory only (numbers, no text): the hot path used for GPU fitting.
Breakdown compute_breakdown(const Model& model, const Job& job, bool explain = false);
// Breakdown, ratio and the GPU fit table; with `explain`, also the
// explanation of every term and the notes.
Estimate estimate(const Model& model, const Job& job, bool explain = true);

// Trainable parameters for the job (all for full training, adapters for LoRA).
double trainable_params(const Model& model, const Job& job);

}  // namespace vramcalc
