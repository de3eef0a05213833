#pragma once
// What one kernel takes on one GPU: the per-op roofline of the cluster planner.
// Each op is timed as max(FLOPs ÷ achievable FLOP/s, bytes ÷ achievable bandwidth,
// a kernel's launch floor). The achievable rates come from published
// measurements (kernels.cpp cites each): matmuls from the measured maximum
// achievable matmul FLOPS of the GPU with tile/wave quantization by shape,
// attention from FlashAttention-2/3 and cuDNN's published throughput by head
// dimension and sequence, streaming ops from the bandwidth pointwise kernels reach.
#include <string>

#include "cluster/sustained.hpp"
#include "hardware/gpus.hpp"

namespace vramcalc {

// Which attention kernel the framework calls (torch SDPA's flash backend is FlashAttention-2;
// Transformer Engine's fused attention is cuDNN's; FA3 is flash_attn_interface on Hopper).
enum class AttnKernel { Fa2, Fa3, Cudnn };
const char* attn_kernel_name(AttnKernel k);
AttnKernel find_attn_kernel(const std::string& name, const std::string& field);  // "fa2", "fa3", "cudnn"

// A low-precision recipe for the linear layers (torchao float8, Transformer Engine, DeepSeek-V3's
// blockwise FP8, MX and NV FP4): the dtype its GEMMs run at and the casts it adds. The embedding,
// the output head, the router, norms and attention stay in bf16 in every one of them.
struct LowPrecision {
    const char* id;
    const char* label;
    bool fp4;               // GEMMs at the FP4 peak (else FP8)
    bool grad_weight_high;  // the weight-gradient GEMM stays bf16 (torchao rowwise_with_gw_hp)
    // Bytes read + written per element to cast each GEMM operand, forward + backward.
    double cast_input, cast_weight, cast_grad;
    bool weight_cast_per_step;  // the weight is cast once per optimizer step, not per micro-batch (TE's fp8 weight cache)
    double scale_bytes;         // block-scale bytes per element the GEMM also reads (MX: 1/32)
    const char* source;
};
const LowPrecision* find_recipe(const std::string& name, const std::string& field);  // null for "none"
std::string recipe_names();

// The achievable rates of one GPU for the planner, fixed once per request: sustained under a whole step's
// power draw (cluster/sustained.hpp), not short bursts.
struct Rates {
    double peak16 = 0;      // dense BF16 peak, FLOP/s (the MFU denominator)
    double peak_low = 0;    // dense FP8 (or FP4) peak, FLOP/s, for the recipe's GEMMs
    double gemm16 = 0;      // sustained BF16 GEMM at its best shape, FLOP/s (MSMF × the power factor)
    double gemm_low = 0;    // sustained low-precision GEMM, FLOP/s
    double bw = 0;          // achievable streaming bandwidth, B/s
    bool blackwell = false; // the sm_100 GEMM table (else sm_90's shape)
    AttnKernel attn = AttnKernel::Fa2;
    bool hopper = false;
    double fixed = 0;       // the single override: every matmul and attention FLOP at this fraction of its peak
    double tensor_scale = 1;  // sustained clock and power limit against the 700 W H100 bursts the attention tables measured
    double power_factor = 1;  // the request's power limit against the one the sustained rate was measured at
    Sustained sustained;      // the GPU's row (straggler spread, source)
    std::string gemm_source, attn_source;
};

// Rates for a GPU (with any request overrides of its peak and bandwidth already applied).
// `peak16_tflops` / `low_tflops` are the peaks the request runs at; `fixed` the override (0 = per op);
// `power_w` the board power limit (0 = the catalog's).
Rates rates_for(const Gpu& gpu, double peak16_tflops, double low_tflops, AttnKernel attn, double fixed, double power_w = 0);

// One GEMM of M×K by K×N (M tokens) at its shape's efficiency (cluster/gemm_table.hpp). in_bytes per element of
// the operands, output in bf16; `groups` K×N weights (a grouped GEMM over that many experts, M the tokens of all
// of them: one kernel over every expert's tiles, each expert's rows padded to whole 128-row tiles).
double gemm_s(const Rates& r, double M, double N, double K, bool low, double in_bytes, double scale_bytes = 0,
              double groups = 1);
// One causal attention call: `flops` as FlashAttention counts them for this pass (forward 4·s²·d·heads/2
// causal; backward 2.5 × that), head dimension d, sequence (context) length `seq`.
double attention_s(const Rates& r, double flops, double head_dim, double seq, bool backward);
// The fraction of the BF16 peak the attention kernel reaches at this shape (from the tables in kernels.cpp).
double attention_fraction(const Rates& r, double head_dim, double seq, bool backward);
// Streaming (bandwidth-bound) kernels moving `bytes` in all, `kernels` launches (each at least the floor).
double stream_s(const Rates& r, double bytes, double kernels = 1);

}  // namespace vramcalc
