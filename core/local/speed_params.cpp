#include "local/speed_params.hpp"

#include <string>

namespace vramcalc {
namespace {

// - gpu_read_efficiency 0.8: the cluster planner's memory_efficiency assumption (core/cluster/cluster.hpp
//   Assumptions), with which the 20 llama.cpp decode rows of tests/validation/throughput.json are within
//   ±20 % (README, "llama.cpp decode speed"); not refitted here.
// - ram_read_efficiency and hop_s: the two fitted parameters, fitted together on the calibration split of
//   tests/validation/local.json (rows with "split": "calibration": llama.cpp and ik_llama.cpp with experts in
//   RAM on a 24-core Threadripper with 8-channel DDR5, an i9-10900X with quad-channel DDR4, a Ryzen 5900X with
//   dual-channel DDR4; grouped by rig), leave-one-source-out cross-validated by tests/test_local.cpp, which
//   refits them and checks these values. For reference, Intel mlc measured 225 GB/s on the Threadripper
//   (307 GB/s peak): 0.73 of peak for a pure read; the expert matmuls reach less. A hand-over is a graph
//   split (ggml-backend.cpp ggml_backend_sched_compute_splits): the hidden state copied across PCIe, the
//   stream synchronised and the CPU's thread pool woken for the experts, then the result copied back.
// - kernel_floor_s 2 µs: the planner's kernel floor (torchao roofline_utils.py KERNEL_LAUNCH_OVERHEAD_SEC).
// - pcie_efficiency 0.8: the planner's link_efficiency.
// - decode_range / prefill_range: the 80th percentile of the absolute leave-one-source-out errors of the
//   decode / prefill rows of tests/validation/local.json (printed by tests/test_local_speed.cpp).
const SpeedParams kParams = {
    0.8,    // gpu_read_efficiency
    0.63,   // ram_read_efficiency (fitted)
    2e-6,   // kernel_floor_s
    135e-6, // hop_s (fitted)
    0.8,    // pcie_efficiency
    0.15,   // decode_range
    0.20,   // prefill_range
};

}  // namespace

const SpeedParams& speed_params() { return kParams; }

double prefill_factor(const Gpu& gpu) {
    const std::string vendor = gpu.vendor;
    // NVIDIA: llama.cpp's MMQ kernels on int8 tensor cores reach the listed FP16 FP32-accumulate rate:
    // RTX 4090, llama 8B Q4_0, pp512 at ubatch 512: 10,358.75 t/s (ggml-org/llama.cpp PR #7676) =
    // 2 × 8.03e9 × 10,358.75 = 166 TFLOPS against the card's 165.2.
    if (vendor == "NVIDIA") return 1.0;
    // Apple: M2 Ultra (76-core GPU), llama 7B Q4_0, pp512: 1,238.48 t/s (ggml-org/llama.cpp discussion
    // #4167) = 2 × 6.74e9 × 1,238.48 = 16.7 TFLOPS against the listed 27.2: 0.61.
    if (vendor == "Apple") return 0.61;
    return 0;
}

}  // namespace vramcalc
