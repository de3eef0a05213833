#pragma once
// Which GPUs hold the job, and the fewest of each that do when it is sharded.
#include <deque>
#include <string>
#include <vector>

#include "answers/estimate.hpp"
#include "hardware/gpus.hpp"
#include "job/plan.hpp"
#include "step/timeline.hpp"

namespace vramcalc {

std::vector<GpuFit> fit_gpus(const Plan& p, const Layout& chosen, double per_gpu_total);
// The most GPUs the fewest-GPUs answer tries (answers/inverse.cpp), and the GPU table for an MoE in training.
constexpr int64_t kMinGpusLimit = 4096;

// The sharded layout for n GPUs, as the GPU table and the fewest-GPUs answer lay it out
// (job/layout.cpp inference_layout_for and training_layout_for). False when n cannot be laid out.
bool fit_layout(const Plan& p, const Layout& chosen, int64_t n, Layout& l);
// How that layout shards, in words: "ZeRO-3 / FSDP", "ZeRO-2", "TP 2 × PP 1", "-sm layer";
// "" on one GPU; with ep > 1 (an MoE trained with expert parallelism) ", EP 8" after it.
std::string layout_label(const Job& job, const Layout& l, int64_t ep = 0);

// Training a mixture of experts (issue 33), the expert-parallel degrees worth trying at n GPUs: each
// divisor of the routed experts whose groups (EP × expert TP) divide a pipeline stage's GPUs, as
// resolve_layout accepts them; {job.ep} for any other job.
std::vector<int64_t> expert_degrees(const ModelConfig& c, const Job& job, int64_t n);

// The layout the GPU table, the fewest-GPUs answer and the verdict take at n GPUs: fit_layout's, and for
// an MoE in training the expert-parallel degree with the least per-GPU total (the job's own EP is one of
// those tried). Numbers only; plans for other EP degrees are made once and kept.
struct FitAt {
    Layout layout;
    int64_t ep = 0;     // the expert-parallel degree taken (0: the job's own)
    double total = 0;   // per-GPU total there
};
class LayoutSearch {
public:
    LayoutSearch(const Plan& p, const Layout& chosen);
    bool at(int64_t n, FitAt& out);
    const Plan& plan_for(int64_t ep);  // the job with that EP (p itself for the job's own)

private:
    const Plan& p_;
    Layout chosen_;
    bool search_ep_;
    std::deque<Job> jobs_;
    std::deque<Plan> plans_;
    std::vector<int64_t> eps_;  // the EP of each kept plan
};
// The job on one GPU of the catalog (`gpu`) or of `capacity` bytes (gpu null): the device each
// engine sizes its pool from, and the name-dependent defaults (vLLM's A100 rule).
Job on_device(const Job& job, const Gpu* gpu, double capacity);
// The step on that device at layout `l`: per-GPU breakdown and the engine's own verdict.
Step step_on_device(const Plan& p, const Gpu* gpu, double capacity, const Layout& l);
// Whether that step holds: the engine's own test for inference, the per-GPU peak for training.
bool holds(const Plan& p, const Step& s, double capacity);

}  // namespace vramcalc
