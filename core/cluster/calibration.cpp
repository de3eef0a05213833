#include "cluster/calibration.hpp"

#include <cstdio>

namespace vramcalc {

// Fitted by scripts/calibrate_planner.py on the calibration rows of tests/validation/throughput.json (see
// tests/validation/planner_fit.json for the fit, every row's cross-validated prediction and the residuals).
namespace {
// Kernel gaps per second of kernel time: PyTorch eager, PyTorch compiled, Megatron / NeMo.
constexpr double kGap[3] = {0.0306, 0.1598, 0.0832};
// vLLM V0 (0.6 – 0.7): host time per decode step on the critical path, seconds.
constexpr double kVllmV0Step = 1.1967e-3;
// measured ÷ predicted of the calibration rows under leave-one-source-out cross-validation: the shortest
// interval holding 80 %.
constexpr RateRange kTraining{-0.037, 0.1625, 40, 50};
constexpr RateRange kServing{-0.0461, 0.1449, 32, 40};
}  // namespace

GapFamily gap_family(Framework f, bool fused) {
    if (f == Framework::Megatron || f == Framework::Nemo) return GapFamily::Megatron;
    return fused ? GapFamily::TorchCompiled : GapFamily::TorchEager;
}

const char* gap_family_name(GapFamily g) {
    return g == GapFamily::Megatron ? "Megatron / NeMo" : g == GapFamily::TorchCompiled ? "PyTorch, compiled" : "PyTorch, eager";
}

double fitted_gap_fraction(Framework f, bool fused) { return kGap[static_cast<int>(gap_family(f, fused))]; }

StepHostFamily step_host_family(const Job& job) {
    if (job.engine != Engine::Vllm || job.vllm_engine != VllmEngine::V0) return StepHostFamily::None;
    int major = 0, minor = 0;
    if (std::sscanf(job.vllm_version.c_str(), "%d.%d", &major, &minor) != 2) return StepHostFamily::None;
    return major == 0 && minor >= 6 ? StepHostFamily::VllmV0 : StepHostFamily::None;  // before 0.6: its host share
}

const char* step_host_family_name(StepHostFamily f) { return f == StepHostFamily::VllmV0 ? "vllm_v0" : ""; }

double fitted_step_host_s(const Job& job) { return step_host_family(job) == StepHostFamily::VllmV0 ? kVllmV0Step : 0; }

RateRange training_range() { return kTraining; }
RateRange serving_range() { return kServing; }

}  // namespace vramcalc
