#include "cluster/calibration.hpp"

namespace vramcalc {

// Fitted by scripts/calibrate_planner.py on the calibration rows of tests/validation/throughput.json (see
// tests/validation/planner_fit.json for the fit, every row's cross-validated prediction and the residuals).
namespace {
// Kernel gaps per second of kernel time: PyTorch eager, PyTorch compiled, Megatron / NeMo.
constexpr double kGap[3] = {0.0306, 0.1598, 0.0832};
// measured ÷ predicted of the calibration rows under leave-one-source-out cross-validation: the shortest
// interval holding 80 %.
constexpr RateRange kTraining{-0.037, 0.1625, 40, 50};
constexpr RateRange kServing{-0.0223, 0.1675, 19, 23};
}  // namespace

GapFamily gap_family(Framework f, bool fused) {
    if (f == Framework::Megatron || f == Framework::Nemo) return GapFamily::Megatron;
    return fused ? GapFamily::TorchCompiled : GapFamily::TorchEager;
}

const char* gap_family_name(GapFamily g) {
    return g == GapFamily::Megatron ? "Megatron / NeMo" : g == GapFamily::TorchCompiled ? "PyTorch, compiled" : "PyTorch, eager";
}

double fitted_gap_fraction(Framework f, bool fused) { return kGap[static_cast<int>(gap_family(f, fused))]; }

RateRange training_range() { return kTraining; }
RateRange serving_range() { return kServing; }

}  // namespace vramcalc
