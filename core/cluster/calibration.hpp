#pragma once
// The planner's few fitted parameters and how sure it is: each parameter is a named physical quantity, fitted
// on the declared calibration rows of tests/validation/throughput.json by scripts/calibrate_planner.py, and
// every figure's range comes from the leave-one-source-out residuals of those rows (docs/cluster.md,
// "Calibration"). The script writes tests/validation/planner_fit.json; the unit tests check these constants
// against it.
#include "job/job.hpp"

namespace vramcalc {

// Kernel gaps of a training framework: GPU-idle time between kernels (launches, host syncs, allocator and
// Python) per second of kernel time. Three families: PyTorch eager, PyTorch compiled (torch.compile's
// fused graphs), Megatron / NeMo (Transformer Engine, CUDA-graph-free but fused).
enum class GapFamily { TorchEager, TorchCompiled, Megatron };
GapFamily gap_family(Framework f, bool fused);
const char* gap_family_name(GapFamily g);
double fitted_gap_fraction(Framework f, bool fused);

// The host time a serving engine spends per decode step on the GPU's critical path, where its design does not
// hide it: vLLM's V0 engine from 0.6.0 prepares each step's inputs on the CPU (worker/model_runner.py
// prepare_model_input, broadcast to the TP workers) before it replays the step's graph; only output processing
// overlaps. Fitted on the calibration serving rows of that family (one value); 0 for every other engine (vLLM
// before 0.6 takes its measured host share instead, decode_floors.cpp).
enum class StepHostFamily { None, VllmV0 };
StepHostFamily step_host_family(const Job& job);
const char* step_host_family_name(StepHostFamily f);  // "vllm_v0"
double fitted_step_host_s(const Job& job);

// The range of a predicted rate: measured ÷ predicted lies in [1 + lo, 1 + hi] for at least 80 % of the
// calibration rows under leave-one-source-out cross-validation (the shortest such interval).
struct RateRange {
    double lo = 0, hi = 0;
    int covered = 0, rows = 0;  // rows inside the range under cross-validation, of all rows
};
RateRange training_range();
RateRange serving_range();

}  // namespace vramcalc
