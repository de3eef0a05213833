#pragma once
// Which GPUs hold the job, and the fewest of each that do when it is sharded.
#include <string>
#include <vector>

#include "answers/estimate.hpp"
#include "hardware/gpus.hpp"
#include "job/plan.hpp"
#include "step/timeline.hpp"

namespace vramcalc {

std::vector<GpuFit> fit_gpus(const Plan& p, const Layout& chosen, double per_gpu_total);

// The sharded layout for n GPUs, as the GPU table and the fewest-GPUs answer lay it out
// (job/layout.cpp inference_layout_for and training_layout_for). False when n cannot be laid out.
bool fit_layout(const Plan& p, const Layout& chosen, int64_t n, Layout& l);
// How that layout shards, in words: "ZeRO-3 / FSDP", "ZeRO-2", "TP 2 × PP 1", "-sm layer";
// "" on one GPU.
std::string layout_label(const Job& job, const Layout& l);
// The job on one GPU of the catalog (`gpu`) or of `capacity` bytes (gpu null): the device each
// engine sizes its pool from, and the name-dependent defaults (vLLM's A100 rule).
Job on_device(const Job& job, const Gpu* gpu, double capacity);
// The step on that device at layout `l`: per-GPU breakdown and the engine's own verdict.
Step step_on_device(const Plan& p, const Gpu* gpu, double capacity, const Layout& l);
// Whether that step holds: the engine's own test for inference, the per-GPU peak for training.
bool holds(const Plan& p, const Step& s, double capacity);

}  // namespace vramcalc
