#pragma once
// How a job is spread over GPUs: data, tensor, pipeline and context parallel
// degrees and the ZeRO stage, and the divisor each model state gets.
#include <cstdint>
#include <string>

#include "model/config.hpp"
#include "job/job.hpp"

namespace vramcalc {

struct Layout {
    int64_t gpus = 1, dp = 1, tp = 1, pp = 1, cp = 1;
    int zero = 0;
};

// Inference's tensor-parallel degree on n GPUs when none is chosen: the
// largest t ≤ 8 dividing n and the attention heads (the rest are pipeline stages).
int64_t inference_tp(const ModelConfig& c, int64_t n);

// Inference on n GPUs as the GPU table and the fewest-GPUs answer count it: the
// job's own TP and PP where given, the one not given taking the rest of the GPUs
// (a replica does not lower per-GPU memory, a stage does); neither given, TP from
// inference_tp and stages across. False when n has no such layout (a degree that
// does not divide n or the heads, more stages than layers).
bool inference_layout_for(const ModelConfig& c, const Job& job, int64_t n, int64_t& tp, int64_t& pp);

// llama.cpp / Ollama on n GPUs: -sm layer a stage per GPU (pp = n), -sm row matrices split over
// them (tp = n), -sm none one GPU only. False when n has no such split.
bool llama_cpp_layout(const ModelConfig& c, const Job& job, int64_t n, int64_t& tp, int64_t& pp);

// Training on n GPUs as the GPU table and the fewest-GPUs answer count it: the
// job's TP × PP × CP, data parallel over the rest, the job's ZeRO stage, else
// ZeRO-3 / FSDP where a data- or context-parallel group exists to shard over (on
// one group it would shard nothing and add its gather buffers; data parallelism
// alone never lowers per-GPU memory). False when n is not a multiple of TP × PP × CP.
bool training_layout_for(const Job& job, int64_t n, int& zero);

// The layout the job asks for. Throws InputError when the degrees do not
// multiply to the GPU count or cannot split the model evenly.
Layout resolve_layout(const ModelConfig& config, const Job& job);

// Sharding divisor for a model state under TP × PP and ZeRO. ZeRO paper
// (Rajbhandari et al. 2019, Fig. 1): stage 1 partitions optimizer states,
// stage 2 also gradients, stage 3 also weights, over the dp (× cp) ranks.
// Context-parallel ranks hold the same weights, so ZeRO shards over them too (Megatron: dp × cp).
inline double shard(const Layout& l, int zero_stage_needed) {
    const double d = static_cast<double>(l.tp * l.pp);
    return l.zero >= zero_stage_needed ? d * static_cast<double>(l.dp * l.cp) : d;
}
// ", ÷ 8 (TP 2 × ZeRO-3 over 4) = 2.01 GB per GPU", or "" when not divided.
std::string shard_text(const Layout& l, int zero_stage_needed, double per_gpu);

}  // namespace vramcalc
