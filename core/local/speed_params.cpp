#include "local/speed_params.hpp"

#include <string>

namespace vramcalc {
namespace {

// - gpu_read_efficiency 0.8: the cluster planner's memory_efficiency assumption (core/cluster/cluster.hpp
//   Assumptions), with which the 20 llama.cpp decode rows of tests/validation/throughput.json are within
//   ±20 % (README, "llama.cpp decode speed"); not refitted here.
// - ram_read_efficiency: fitted on the calibration split of tests/validation/local.json (rows with
//   "split": "calibration", grouped by source), leave-one-source-out cross-validated by
//   tests/test_local_speed.cpp, which refits it and checks this value. For reference, Intel mlc measured
//   225 GB/s on the 8-channel DDR5-4800 Threadripper of LOC-A02 (307 GB/s peak): 0.73.
// - kernel_floor_s 2 µs: the planner's kernel floor (torchao roofline_utils.py KERNEL_LAUNCH_OVERHEAD_SEC).
// - hop_s: a hand-over is a small cudaMemcpyAsync and a stream synchronisation at a graph split
//   (ggml-backend.cpp ggml_backend_sched_compute_splits); 10 µs, the order of a PCIe round trip with the
//   launch and synchronisation around it (NVIDIA CUDA C++ Best Practices Guide, "Data Transfer Between
//   Host and Device": small transfers are latency-bound at microseconds).
// - pcie_efficiency 0.8: the planner's link_efficiency.
// - decode_range / prefill_range: the 80th percentile of the absolute leave-one-source-out errors of the
//   decode / prefill rows of tests/validation/local.json (printed by tests/test_local_speed.cpp).
const SpeedParams kParams = {
    0.8,    // gpu_read_efficiency
    0.62,   // ram_read_efficiency (fitted)
    2e-6,   // kernel_floor_s
    10e-6,  // hop_s
    0.8,    // pcie_efficiency
    0.25,   // decode_range
    0.35,   // prefill_range
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
