#include "cluster/kernels.hpp"

#include <algorithm>
#include <cmath>

#include "cluster/gemm_table.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// ---- Attention throughput, TFLOPS on an H100 80GB SXM5 (dense BF16 peak 989.4), BF16, as published in
// Shah et al. 2024, "FlashAttention-3" (arXiv 2407.08608), Figure 5 (forward, causal mask) and Figure 6
// (backward), at sequence lengths 512, 1k, 2k, 4k, 8k, 16k (batch × seq = 16k tokens, 2,048 hidden).
// Head dim 128; the forward at head dim 256 is its own panel (used from head dim 192 up: MLA's 192).
// The paper's backward panels are for head dims 64 and 128; larger heads use 128's.
constexpr double kSeq[6] = {512, 1024, 2048, 4096, 8192, 16384};
constexpr double kH100Peak = 989.4;
struct AttnTable {
    double fwd128[6], fwd256[6], bwd128[6];
};
const AttnTable& table_for(AttnKernel k) {
    static const AttnTable fa2 = {{191, 260, 298, 319, 333, 335}, {208, 251, 278, 293, 297, 298},
                                  {214, 260, 291, 310, 318, 322}};
    static const AttnTable cudnn = {{315, 410, 484, 518, 529, 539}, {308, 391, 450, 483, 497, 509},
                                    {305, 408, 465, 499, 518, 516}};
    static const AttnTable fa3 = {{292, 423, 521, 579, 602, 616}, {286, 427, 537, 612, 628, 642},
                                  {316, 424, 501, 542, 559, 561}};
    return k == AttnKernel::Fa3 ? fa3 : k == AttnKernel::Cudnn ? cudnn : fa2;
}

// Linear interpolation in log2(seq), clamped to the published range (shorter sequences are taken at
// the 512 figure scaled by seq/512: a 256-token attention does half a 512-token one's work per launch
// with the same fixed cost).
double interpolate(const double (&v)[6], double seq) {
    if (seq <= kSeq[0]) return v[0] * std::max(seq, 1.0) / kSeq[0];
    if (seq >= kSeq[5]) return v[5];
    const double x = std::log2(seq / kSeq[0]);
    const int i = std::min(4, static_cast<int>(x));
    const double f = x - i;
    return v[i] + (v[i + 1] - v[i]) * f;
}

// ---- Low-precision recipes. Cast bytes per element (read + write, forward + backward) as torchao counts
// them in torchao/testing/training/roofline_utils.py get_tensor_memory_traffic_ovhd_s, without fusion with
// the previous op (eager): tensorwise input/grad = amax read 2 + cast read 2, write 2 × 1 (row- and
// column-major) = 6, weight = 2 + 2 × (2 + 1) = 8; rowwise input/grad = (2 + 1 + 2) + (2 + 1) = 8, weight
// 3 + 4 + 3 = 10; rowwise_with_gw_hp input/grad 3, weight 6 (the grad-weight GEMM in bf16); mxfp8: two
// casts of 2 + 1 per operand = 6, plus an e8m0 scale per 32 elements. Transformer Engine (delayed
// scaling, amax from the history): one fused cast-transpose kernel per operand (transformer_engine/common/
// transpose/cast_transpose.cu: reads bf16 once, writes the fp8 tensor and its fp8 transpose) = 2 + 1 + 1,
// and the weight's fp8 copy is cached across the micro-batches of a step (TE Linear is_first_microbatch);
// current scaling adds the amax read (2). DeepSeek-V3's blockwise FP8 (arXiv 2412.19437 §3.3: 1×128 tiles
// for activations, 128×128 blocks for weights, scales computed online) casts each operand for the forward
// and again transposed for the backward: 2 × (2 + 1). NVFP4 (E2M1 + an E4M3 scale per 16 + a tensor
// amax) and MXFP4 (E2M1 + an E8M0 scale per 32, OCP Microscaling spec v1.0 §6.3): mxfp8's two casts with
// 0.5-byte elements, plus the amax read for NVFP4.
const LowPrecision kRecipes[] = {
    {"tensorwise", "torchao float8 tensorwise", false, false, 6, 8, 6, false, 0,
     "torchao float8 (Float8LinearConfig tensorwise); casts: roofline_utils.py"},
    {"rowwise", "torchao float8 rowwise", false, false, 8, 10, 8, false, 0,
     "torchao float8 (Float8LinearConfig rowwise); casts: roofline_utils.py"},
    {"rowwise_gw_hp", "torchao float8 rowwise, grad-weight in bf16", false, true, 3, 6, 3, false, 0,
     "torchao float8 rowwise_with_gw_hp; casts: roofline_utils.py"},
    {"mxfp8", "MXFP8 (block 32)", false, false, 6, 6, 6, false, 1.0 / 32, "torchao mx_formats mxfp8; casts: roofline_utils.py"},
    {"te_delayed", "Transformer Engine FP8, delayed scaling", false, false, 4, 4, 4, true, 0,
     "Transformer Engine DelayedScaling (Megatron/NeMo fp8 'hybrid'); cast_transpose.cu"},
    {"te_current", "Transformer Engine FP8, current scaling", false, false, 6, 6, 6, true, 0,
     "Transformer Engine Float8CurrentScaling; cast_transpose.cu + amax"},
    {"blockwise", "FP8 blockwise (1×128 / 128×128)", false, false, 6, 6, 6, false, 4.0 / 128,
     "DeepSeek-V3 technical report §3.3 (TE Float8BlockScaling)"},
    {"mxfp4", "MXFP4 (block 32)", true, false, 5, 5, 5, false, 1.0 / 32, "OCP Microscaling spec v1.0 §6.3; torchao mx_formats"},
    {"nvfp4", "NVFP4 (block 16 + tensor scale)", true, false, 7, 7, 7, false, 1.0 / 16, "NVIDIA NVFP4 (Blackwell); torchao nvfp4"},
};

}  // namespace

const char* attn_kernel_name(AttnKernel k) {
    return k == AttnKernel::Fa3 ? "FlashAttention-3" : k == AttnKernel::Cudnn ? "cuDNN fused attention" : "FlashAttention-2";
}

AttnKernel find_attn_kernel(const std::string& name, const std::string& field) {
    if (name == "fa2") return AttnKernel::Fa2;
    if (name == "fa3") return AttnKernel::Fa3;
    if (name == "cudnn") return AttnKernel::Cudnn;
    throw InputError(field, "must be one of auto, fa2, fa3, cudnn, got '" + short_text(name) + "'");
}

std::string recipe_names() {
    std::string s = "none";
    for (const auto& r : kRecipes) s += std::string(", ") + r.id;
    return s;
}

const LowPrecision* find_recipe(const std::string& name, const std::string& field) {
    if (name == "none") return nullptr;
    for (const auto& r : kRecipes)
        if (name == r.id) return &r;
    throw InputError(field, "unknown recipe '" + short_text(name) + "'; choose one of " + recipe_names());
}

Rates rates_for(const Gpu& g, double peak16_tflops, double low_tflops, AttnKernel attn, double fixed, double power_w) {
    const Achieved a = achieved(g);
    Rates r;
    r.peak16 = peak16_tflops * 1e12;
    r.peak_low = low_tflops * 1e12;
    r.hopper = a.hopper;
    r.fixed = fixed;
    r.sustained = sustained_for(g);
    const Sustained& s = r.sustained;
    const std::string id = g.id;
    r.blackwell = id == "b200" || id == "b300" || id == "gb200";
    // The sustained rate (MSMF) at the request's power limit; a peak override (cluster.tflops) scales it.
    r.power_factor = power_factor(s, power_w > 0 ? power_w : g.power_w);
    const double scale16 = g.tflops_bf16 > 0 ? peak16_tflops / g.tflops_bf16 : 1;
    r.gemm16 = s.bf16_tflops * 1e12 * scale16 * r.power_factor;
    // FP8 at its own sustained figure; FP4 (no sustained or burst figure published) at the FP8 fraction of peak.
    const double f8 = g.tflops_fp8 > 0 && s.fp8_tflops > 0 ? s.fp8_tflops / g.tflops_fp8 : s.bf16_tflops / std::max(g.tflops_bf16, 1e-9);
    r.gemm_low = r.peak_low * f8 * r.power_factor;
    r.gemm_source = s.source + (r.power_factor != 1 ? ", × " + printf_text("%.3f", r.power_factor) + " for the power limit" : "") +
                    "; " + gemm_table_source();
    // The attention tables are bursts on a 700 W H100: a whole step holds the sustained clock (the GPU's
    // sustained-to-burst ratio), at the request's power limit.
    r.tensor_scale = r.power_factor / s.burst_over;
    // FlashAttention-3 and cuDNN's fused attention tables are Hopper kernels; elsewhere the
    // FlashAttention-2 kernel reaches 50-73 % of the A100's peak (Dao 2023, arXiv 2307.08691, §4.1), as
    // FA3 does of the H100's: off Hopper the FA3 table's fractions of peak are taken.
    r.attn = attn;
    r.attn_source = std::string(attn_kernel_name(attn)) + (a.hopper ? " on H100 (FA3 paper, Figures 5-6)"
                                                                    : ": FA3-on-H100 fractions of peak (off Hopper)") +
                    ", × " + printf_text("%.2f", r.tensor_scale) + " for the sustained clock";
    // Streaming kernels: 92 % of the peak bandwidth ("pointwise triton kernels with large inputs ... about
    // 2.2k GBPS on Meta's H100 variant", torchao roofline_utils.py pct_achievable_mem_bw).
    r.bw = g.memory_tbps * 1e12 * 0.92;
    return r;
}

namespace {

// A kernel's floor: "run a triton kernel with a single element read/write on an H100 and measure GPU
// time from the trace" = 2 µs (torchao roofline_utils.py KERNEL_LAUNCH_OVERHEAD_SEC).
constexpr double kLaunch = 2e-6;

}  // namespace

double gemm_s(const Rates& r, double M, double N, double K, bool low, double in_bytes, double scale_bytes, double groups) {
    if (M <= 0 || N <= 0 || K <= 0) return 0;
    const double flops = 2 * M * N * K;
    const double peak = low ? r.peak_low : r.peak16;
    const double best = low ? r.gemm_low : r.gemm16;
    double rate = peak * r.fixed;
    if (r.fixed <= 0) {
        // A grouped GEMM runs one kernel over every group's tiles, each group's rows padded to 128-row tiles.
        const double per_group = M / std::max(groups, 1.0);
        const double padded = groups > 1 ? std::max(groups, 1.0) * std::ceil(per_group / 128) * 128 : M;
        rate = best * gemm_efficiency(padded, N, K, r.blackwell) * (M / padded);
    }
    const double bytes = (M * K + groups * K * N) * (in_bytes + scale_bytes) + M * N * 2;
    return std::max({flops / rate, bytes / r.bw, kLaunch});
}

double attention_fraction(const Rates& r, double head_dim, double seq, bool backward) {
    const AttnTable& t = table_for(r.hopper ? r.attn : AttnKernel::Fa3);
    const double tflops = backward ? interpolate(t.bwd128, seq) : interpolate(head_dim >= 192 ? t.fwd256 : t.fwd128, seq);
    return tflops / kH100Peak;
}

double attention_s(const Rates& r, double flops, double head_dim, double seq, bool backward) {
    if (flops <= 0) return 0;
    const double fraction = r.fixed > 0 ? r.fixed : attention_fraction(r, head_dim, seq, backward) * r.tensor_scale;
    return std::max(flops / (r.peak16 * fraction), kLaunch);
}

double stream_s(const Rates& r, double bytes, double kernels) {
    return bytes > 0 ? std::max(bytes / r.bw, kernels * kLaunch) : 0;
}

}  // namespace vramcalc
