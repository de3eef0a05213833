// MLX on Apple silicon (mlx-lm's generate and server, LM Studio's MLX engine): weights as mlx-lm
// quantizes them, the KV cache in the model's dtype unless kv_bits, one prefill step's workspace.
// Everything lives in the unified memory; the GPU's share of it (core/machine/) decides the fit.
#include <algorithm>
#include <cmath>

#include "memory/states.hpp"
#include "serving/engines.hpp"
#include "serving/serving.hpp"
#include "serving/working_set.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// mlx-lm's affine quantization (mlx_lm/utils.py quantize_model, mx.quantize): every layer with
// to_quantized (Linear, Embedding, the MoE SwitchLinear stacks) whose last dimension divides the group,
// at `bits` plus a scale and a bias per group in the model's 16-bit dtype: bits + 32 / group. Norms,
// biases and other vectors stay 16-bit. MXFP4 ("mxfp4" mode: E8M0 scale per 32) is 4.25 bits.
double mlx_bits(const Plan& p, std::string& scheme) {
    const Job& job = p.job;
    const double g = static_cast<double>(job.mlx_group_size);
    switch (p.weights.id) {
        case FormatId::Int4: scheme = "4-bit affine, group " + count_text(job.mlx_group_size); return 4 + 32 / g;
        case FormatId::Int8: scheme = "8-bit affine, group " + count_text(job.mlx_group_size); return 8 + 32 / g;
        case FormatId::Mxfp4: scheme = "MXFP4 (group 32)"; return 4.25;
        case FormatId::Bf16: case FormatId::Fp16: scheme = "16-bit"; return 16;
        case FormatId::Fp32: scheme = "32-bit"; return 32;
        default:
            throw InputError("job.dtype", std::string("MLX stores weights as bf16, fp16, int8, int4 (mlx-lm's affine "
                                                      "quantization) or mxfp4; got '") + p.weights.name + "'");
    }
}

}  // namespace

void mlx_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    std::string scheme;
    const double bits = mlx_bits(p, scheme);
    double matrices = 0, vectors = 0;
    for (const Tensor& t : p.m.tensors) (t.kind == TensorKind::Vector ? vectors : matrices) += t.params();
    // The checkpoint's own quantization (dtype auto with a quantization_config) keeps its bytes.
    const double weights = p.shipped || p.exact ? base_weights_bytes(p, nullptr) : matrices * bits / 8 + vectors * 2;
    // KVCache grows in steps of 256 tokens (mlx_lm/models/cache.py KVCache.step); kv_bits quantizes it
    // (QuantizedKVCache: bits + a 16-bit scale and bias per 64 values, kv_group_size 64).
    const int64_t tokens = (job.seq + 255) / 256 * 256;
    const KvCost k = kv_cost(p, l, 1.0);
    const double kv16 = kv_bytes(p, k, tokens, job.batch);
    const double kv = job.kv_bits > 0 ? kv16 * (static_cast<double>(job.kv_bits) + 32.0 / 64) / p.kv->bits : kv16;
    // One prefill step of prefill_step_size tokens through one layer (the fused attention keeps no scores).
    const double step = static_cast<double>(std::min<int64_t>(job.prefill_step_size, job.seq * job.batch));
    const double work = layer_working_set(p, step, 1, 3);
    const double logits = 4 * static_cast<double>(job.batch) * static_cast<double>(c.vocab);
    b.bytes[kWeights] = weights;
    b.bytes[kKvCache] = kv;
    b.bytes[kActivations] = work + logits;
    b.bytes[kBuffers] = 0;
    b.bytes[kOverhead] = job.overhead_gb * kBytesPerGB;
    s.kv_needed = kv;
    s.layers = c.layers;
    s.gpu_layers = c.layers;
    s.weights_mix = scheme;
    if (explain) {
        b.why[kWeights] = "mlx-lm " + scheme + ": " + plain_number(bits) + " bits × " + params_text(matrices) + " matrix weights + " +
                          params_text(vectors) + " 16-bit vectors = " + gb_text(weights) + " in unified memory";
        b.why[kKvCache] = kv_why(p, k, kv16) + " at " + count_text(tokens) + " tokens (KVCache grows in steps of 256)" +
                          (job.kv_bits > 0 ? ", quantized to " + count_text(job.kv_bits) + " bits + scales: " + gb_text(kv)
                                           : "; fp16 unless kv_bits is set");
        b.why[kActivations] = "one prefill step of " + count_text(static_cast<int64_t>(step)) + " tokens (prefill_step_size) through one "
                              "layer " + gb_text(work) + " + the last token's fp32 logits " + gb_text(logits);
        b.why[kOverhead] = job.overhead_gb > 0 ? "as given " + gb_text(b.bytes[kOverhead]) : "none: no CUDA context on Metal";
    }
}

}  // namespace vramcalc
