#include "cluster/sustained.hpp"

#include <algorithm>
#include <cmath>

namespace vramcalc {
namespace {

// Measured sustained rates (stas00/ml-engineering, branch fast-mamf, commit 082816f:
// compute/accelerator/README.md "Maximum Achievable Matmul FLOPS comparison table" and
// compute/accelerator/benchmarks/README.md "What we measured: alone vs all-8 concurrent"; mamf-finder.py v4,
// torch 2.13/2.14 + cu130). MSMF is "the best a matmul holds once the GPU is saturated at ~TDP and the clock
// has settled", MAMF the best short burst at the boost clock:
// - H200 SXM, 700 W, BF16: alone (n = 5) MSMF 702.9 at ~1,440-1,465 MHz against MAMF 828.0 at 1,980 MHz; all 8
//   busy (n = 40) a mean of 698.6 with a 4.5 % range across the 8 GPUs; FP8 MSMF 1,288.7, MAMF 1,491.9.
// - B200 SXM, 1,000 W, BF16: alone MSMF 1,455.7 (~1,330-1,460 MHz) against MAMF 1,732.6; all 8 busy a mean of
//   1,426.4 with a 10.4 % range; FP8 MSMF 2,795.7, MAMF 3,435.2.
// The H100 SXM and H800 are the H200's GH100 die at the same 700 W limit and clocks (the MAMF table: "H200 is the
// same"); GB200 and B300 take the B200's ratios on their own MAMF (no MSMF published).
struct Row {
    const char* id;
    double bf16, fp8, burst_over, concurrent, spread, power_w;
    const char* source;
};
constexpr double kH200Bf16 = 702.9, kH200Fp8 = 1288.7, kH200Burst = 828.0 / 702.9;
constexpr double kB200Bf16 = 1455.7, kB200Fp8 = 2795.7, kB200Burst = 1732.6 / 1455.7;
constexpr double kH200Concurrent = 698.6 / 702.9, kB200Concurrent = 1426.4 / 1455.7;
constexpr double kH200Spread = 0.045, kB200Spread = 0.104;
const Row kRows[] = {
    {"h200", kH200Bf16, kH200Fp8, kH200Burst, kH200Concurrent, kH200Spread, 700,
     "MSMF measured on an H200 SXM at 700 W: 702.9 BF16 / 1,288.7 FP8 TFLOPS sustained against 828.0 / 1,491.9 in bursts; "
     "all 8 busy: mean −0.6 %, 4.5 % range (stas00/ml-engineering mamf-finder v4)"},
    {"h100", kH200Bf16, kH200Fp8, kH200Burst, kH200Concurrent, kH200Spread, 700,
     "the H200's MSMF (the same GH100 die at 700 W): 702.9 BF16 TFLOPS sustained against 828.0 in bursts (stas00/ml-engineering)"},
    {"h800", kH200Bf16, kH200Fp8, kH200Burst, kH200Concurrent, kH200Spread, 700,
     "the H200's MSMF (the same GH100 die at 700 W): 702.9 BF16 TFLOPS sustained (stas00/ml-engineering)"},
    {"b200", kB200Bf16, kB200Fp8, kB200Burst, kB200Concurrent, kB200Spread, 1000,
     "MSMF measured on a B200 SXM at 1,000 W: 1,455.7 BF16 / 2,795.7 FP8 TFLOPS sustained against 1,732.6 / 3,435.2 in "
     "bursts; all 8 busy: mean −2.0 %, 10.4 % range (stas00/ml-engineering mamf-finder v4)"},
    {"gb200", 1822.0 / kB200Burst, 3615.6 * kB200Fp8 / 3435.2, kB200Burst, kB200Concurrent, kB200Spread, 1200,
     "GB200 MAMF 1,822 BF16 / 3,615.6 FP8 at the B200's measured sustained-to-burst ratios (no MSMF published)"},
    {"b300", 1769.0 / kB200Burst, 3353.3 * kB200Fp8 / 3435.2, kB200Burst, kB200Concurrent, kB200Spread, 1100,
     "B300 MAMF 1,769 BF16 / 3,353.3 FP8 at the B200's measured sustained-to-burst ratios (no MSMF published)"},
};

// Parts without a sustained measurement: the mean of the two measured parts' ratios (sustained over burst
// 0.849 and 0.840 in BF16, 0.864 and 0.814 in FP8; board-busy mean 0.994 and 0.980; range 4.5 % and 10.4 %).
constexpr double kMeanBf16Ratio = (1 / kH200Burst + 1 / kB200Burst) / 2;
constexpr double kMeanFp8Ratio = (kH200Fp8 / 1491.9 + kB200Fp8 / 3435.2) / 2;
constexpr double kMeanConcurrent = (kH200Concurrent + kB200Concurrent) / 2;
constexpr double kMeanSpread = (kH200Spread + kB200Spread) / 2;

}  // namespace

Sustained sustained_for(const Gpu& g) {
    const Achieved a = achieved(g);
    // A capped variant of another part (the 500 W Grand Teton H100): that part's row, at this part's power.
    const std::string id = a.capped_of != nullptr ? a.capped_of : g.id;
    for (const Row& row : kRows)
        if (id == row.id) {
            Sustained s{row.bf16, row.fp8, row.burst_over, row.concurrent, row.spread, row.power_w, true, row.source};
            if (a.capped_of != nullptr)
                s.source += std::string(", at ") + std::to_string(static_cast<int>(g.power_w)) + " W";
            return s;
        }
    // Unmeasured: the part's own burst figure (MAMF, else the H100's or MI300X's fraction of peak) at the
    // measured parts' ratios.
    const bool amd = std::string(g.vendor) == "AMD";
    const double burst16 = a.mamf_bf16 > 0 ? a.mamf_bf16 : g.tflops_bf16 * (amd ? 668.4 / 1307.4 : 794.5 / 989.4);
    const double burst8 = a.mamf_fp8 > 0 ? a.mamf_fp8 : g.tflops_fp8 * (amd ? 668.4 / 1307.4 : 1402.6 / 1978.9);
    Sustained s;
    s.bf16_tflops = burst16 * kMeanBf16Ratio;
    s.fp8_tflops = burst8 * kMeanFp8Ratio;
    s.burst_over = 1 / kMeanBf16Ratio;
    s.concurrent = kMeanConcurrent;
    s.spread = kMeanSpread;
    s.power_w = g.power_w;
    s.source = std::string(a.mamf_bf16 > 0 ? "MAMF " : amd ? "the MI300X's MAMF fraction of peak, " : "the H100's MAMF fraction of peak, ") +
               "at the sustained-to-burst ratio measured on the H200 and B200 (0.84; no MSMF published for this GPU)";
    return s;
}

double power_factor(const Sustained& s, double power_w) {
    if (!(power_w > 0) || !(s.power_w > 0)) return 1;
    return std::min(s.burst_over, std::cbrt(power_w / s.power_w));
}

double slowest_of(const Sustained& s, int64_t n) {
    if (n <= 1) return 1;
    // n rates spread evenly over [mean (1 − spread/2), mean (1 + spread/2)]: the expected minimum is the low end
    // plus spread/(n + 1) of the mean.
    const double nd = static_cast<double>(n);
    return s.concurrent * (1 - s.spread / 2 + s.spread / (nd + 1));
}

// Lee et al. 2025, "Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed Deep Learning:
// Performance and Power Implications" (arXiv 2507.03114), A100 / H100 / MI250 / MI210, GPT and Llama models:
// "overlapping computation and communication can result in an average computational slowdown of 18.9 %, with a
// maximum of 40.0 %". The mechanism: NCCL's kernels hold SMs (an all-gather's 24 blocks of an H100's 132 SMs:
// 132/108 − 1 = 22 %; NVIDIA developer forum, "Compute-communication overlap causes severe GEMM performance
// degradation because of tail effect": a GEMM at ~80 % MFU alone fell to ~47 % beside an all-gather) and HBM.
double overlap_slowdown() { return 0.189; }
const char* overlap_slowdown_source() {
    return "compute overlapped with NCCL runs 18.9 % slower on average (Lee et al. 2025, arXiv 2507.03114)";
}

}  // namespace vramcalc
