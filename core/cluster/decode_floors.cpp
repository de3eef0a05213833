#include "cluster/decode_floors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "cluster/calibration.hpp"
#include "model/formats.hpp"

namespace vramcalc {
namespace {

const ServePreset kServePresets[] = {
    {Engine::Custom, AllReduceImpl::Nccl, false, true, false, "NCCL all-reduce"},
    // vLLM: custom_all_reduce.py (one-shot / two-shot up to 8 MiB, NCCL past it); fused_moe Triton kernels; the
    // decode step replayed as one CUDA graph (worker/model_runner.py capture_model, V1 gpu_model_runner.py)
    {Engine::Vllm, AllReduceImpl::VllmCustom, false, true, true, "vLLM custom all-reduce, fused_moe"},
    // SGLang: its TensorRT-LLM custom all-reduce kernels (sgl-kernel trt_reduce); fused_moe Triton kernels; CUDA
    // graphs of the decode batch (model_executor/cuda_graph_runner.py)
    {Engine::Sglang, AllReduceImpl::TrtCustom, false, true, true, "SGLang TensorRT-LLM all-reduce, fused_moe"},
    // llama.cpp / Ollama: -sm layer, the default split: whole layers per GPU, run one after another; experts
    // through ggml's mul_mat_id (no fused-MoE floor measured)
    {Engine::LlamaCpp, AllReduceImpl::Nccl, true, false, false, "llama.cpp -sm layer"},
    {Engine::Ollama, AllReduceImpl::Nccl, true, false, false, "Ollama (llama.cpp) -sm layer"},
};

// A kernel's floor: "run a triton kernel with a single element read/write on an H100 and measure GPU
// time from the trace" = 2 µs (torchao roofline_utils.py KERNEL_LAUNCH_OVERHEAD_SEC).
constexpr double kKernelFloor = 2e-6;
// The fused-MoE kernels of one MoE layer at batch 1: 40.44 µs for both (gate-up and down) on Qwen3-30B-A3B
// FP8, TP 1 (vllm-project/vllm#24700, benchmarks/kernels/benchmark_moe.py, "Batch size: 1, Kernel time:
// 40.44 us"), against 11 µs for the 8 experts' 38 MB at 3.35 TB/s: a minimum of 20.2 µs per fused-MoE
// kernel, at every batch until the weights' read takes longer (237 µs at batch 64).
constexpr double kFusedMoeFloor = 40.44e-6 / 2;
// What each kernel of a CUDA-graph-replayed decode step costs beyond its bytes at 80 % of the bandwidth.
// vLLM's benchmark_moe.py (and SGLang's copy, tuning_fused_moe_triton.py) replays 10 fused-MoE calls in one
// CUDA graph and divides the time: the fused-MoE pipeline of one layer, whose kernels are counted below
// (top-k, align, 2 grouped GEMMs, activation, sum; 2 activation quantizations in FP8). At batch 1:
//   H100, Qwen3-30B-A3B FP8, 8 kernels, 40.44 µs for 8 experts' 37.7 MB (vllm#24700)        → 3.29 µs a kernel
//   H100, Mixtral-8x7B BF16 TP 2, 6 kernels, 144.03 µs for 2 experts' 352 MB (vllm#24700)     → 2.09
//   B200, Qwen3-Omni-30B-A3B BF16, 6 kernels, 39.61 µs for 8 experts' 75.5 MB (vllm#31448)    → 4.63
//   H200, Qwen3-235B-A22B FP8 TP 8, 8 kernels, 31.70 µs for 8 experts' 18.9 MB (sglang#11730) → 3.35
// (kernel time − bytes / (0.8 × bandwidth)) / kernels; the mean is 3.34 µs. The same figure with the read
// reproduces vllm#24700's Qwen3 series at batch 2 … 64 within 7 % (the experts a batch touches at 80 %;
// tests/test_planner_questions.cpp).
constexpr double kGraphKernel = 3.34e-6;
// A kernel launched by the host without a CUDA graph: Qwen2.5-Omni-7B's thinker decodes at 22 ms a token
// eager against 13 ms with CUDA graphs on 2 × A800 (vllm-project/vllm-omni#7960): 9 ms over 28 layers of
// about 15 launches each = 21.4 µs of host time per launch.
constexpr double kEagerLaunch = 9e-3 / (28 * 15);
// vLLM before 0.6.0 scheduled on the GPU's critical path: "for Llama 3 8B running on 1 H100 GPU: the HTTP
// API server takes 33 % of the total execution time, 29 % ... scheduling ... only 38 % ... GPU execution"
// (vLLM blog, 2024-09-05, "vLLM v0.6.0: 2.7x Throughput Improvement and 5x Latency Reduction"); 0.6.0 moved
// the API server out of the engine process and overlapped output processing with the next step, as SGLang's
// overlap scheduler does: their host work hides behind the GPU.
constexpr double kVllm05HostShare = 0.62;

bool vllm_before_0_6(const Job& job) {
    int major = 0, minor = 0;
    if (job.vllm_version.rfind("newest", 0) == 0) return false;
    if (std::sscanf(job.vllm_version.c_str(), "%d.%d", &major, &minor) != 2) return false;
    return major == 0 && minor < 6;
}

}  // namespace

const ServePreset& serve_preset(Engine e) {
    for (const auto& p : kServePresets)
        if (p.engine == e) return p;
    return kServePresets[0];
}

DecodeKernels decode_kernels(const Model& model, const Job& job, const Dims& d) {
    // The kernels vLLM and SGLang launch per decoder layer at decode (one token per sequence), counted from the
    // modules of their model files: vllm/model_executor/models/llama.py LlamaDecoderLayer (fused residual + RMSNorm, qkv_proj,
    // rotary_emb, the KV-cache write, the attention kernel, o_proj; RMSNorm, gate_up_proj, SiluAndMul,
    // down_proj) = 10; deepseek_v2.py DeepseekV2MLAAttention with the absorbed MLA backend adds 7 (q_a and
    // kv_a layernorms, q_b_proj, the W_UK and W_UV batched GEMMs, the rope / nope split and concatenation, the
    // attention's split-KV combine), and a routed MoE layer's FusedMoE adds 4 to the dense MLP's 4 (router
    // GEMM, top-k, moe_align_block_size, 2 grouped GEMMs, activation, moe_sum), its shared experts 4 more
    // (gate_up, activation, down, the sum with the routed output). W8A8 weights (FP8, INT8) quantize each GEMM's
    // activations dynamically first (scaled_fp8_quant / per_token_group_quant_fp8): one kernel per GEMM input.
    const ModelConfig& c = model.config;
    const double moe_share = d.layers > 0 ? d.moe_layers / d.layers : 0;
    const bool mla = c.is_mla();
    const bool shared = c.shared_experts > 0 || c.shared_expert_intermediate > 0;
    DecodeKernels k;
    k.small = 11 + (mla ? 6 : 0) + 6 * moe_share;  // the non-GEMM kernels the 2 µs floor applies to
    k.gemms = 4 + (mla ? 3 : 0) + moe_share * 6;  // the router, 2 fused-MoE and 3 shared-expert GEMMs
    const bool w8a8 = job.dtype->id == FormatId::Fp8 || job.dtype->id == FormatId::Int8;
    // Quantized GEMM inputs: qkv (MLA: fused q_a/kv_a, q_b), o, the MLP's 2 (MoE: experts' 2, shared 2).
    const double quantized = w8a8 ? (2 + (mla ? 1 : 0) + 2 + moe_share * (shared ? 2 : 0)) : 0;
    k.per_layer = 10 + (mla ? 7 : 0) + moe_share * (4 + (shared ? 4 : 0)) + quantized;
    // Per step, outside the layers: the embedding lookup, the final norm, the LM head, and the sampler's
    // logits processing and sampling (temperature, softmax, top-k/p, the draw): about 8.
    k.per_step = 8;
    return k;
}

DecodeFloors decode_floors(const Model& model, const Job& job, const Dims& d, const ClusterRequest& r, const ServeResult& s,
                           double bw) {
    DecodeFloors f;
    const ServePreset& preset = serve_preset(job.engine);
    // CUDA graphs: vLLM unless enforce_eager, SGLang unless disable_cuda_graph, llama.cpp (ggml's CUDA graphs)
    // and the plain roofline; transformers' generate runs eagerly.
    bool graphs = job.engine == Engine::Vllm ? !job.enforce_eager
                  : job.engine == Engine::Sglang ? !job.disable_cuda_graph
                  : job.engine != Engine::HfGenerate;
    if (r.cuda_graphs >= 0) graphs = r.cuda_graphs == 1;
    f.cuda_graphs = graphs;
    const DecodeKernels k = decode_kernels(model, job, d);
    const double layers = d.layers;
    if (preset.kernel_inventory) {
        // vLLM and SGLang: every kernel of the step costs its fixed time on top of the bytes it reads (those are
        // the weights' and KV's read, counted once); the fused-MoE pipeline's minimum is its kernels' share.
        f.kernels = layers * k.per_layer + k.per_step;
        f.kernel_each_s = kGraphKernel;
        f.kernels_s = f.kernels * kGraphKernel;
    } else {
        // Small kernels per layer, each at least the floor: 2 norms, RoPE on q and k, the attention core's 3
        // kernels (scores, softmax, weighted sum), the activation and its gate product, 2 residual adds = 11;
        // MLA's latent path 6 more; a routed MoE layer's router top-k, softmax, weights, sort / align, gather and
        // weighted sum = 6 more. The GEMVs' own time is the weights they read.
        f.kernels = layers * k.small;
        f.kernel_each_s = kKernelFloor;
        f.kernels_s = f.kernels * kKernelFloor;
        // Fused-MoE kernels: at least their floor per kernel (gate-up and down), beyond the experts' read.
        if (preset.fused_moe && d.moe_layers > 0 && d.experts > 0) {
            const double expert_bytes = s.weights_read_bytes * (d.total_params > 0 ? d.routed_params / d.total_params : 0);
            const double per_layer_read = expert_bytes / std::max(1.0, d.moe_layers / static_cast<double>(s.pp)) /
                                          (bw * r.assume.memory_efficiency);
            f.moe_s = d.moe_layers * std::max(0.0, 2 * kFusedMoeFloor - per_layer_read);
        }
    }
    // Without CUDA graphs the host launches every kernel: the small ones, the layer's GEMMs and 2 all-reduces
    // under TP (vLLM and SGLang: their whole inventory).
    if (!graphs) {
        const double launches = preset.kernel_inventory ? f.kernels + layers * (s.tp > 1 ? 2 : 0)
                                                        : layers * (k.small + k.gemms + (s.tp > 1 ? 2 : 0));
        f.launch_s = launches * kEagerLaunch;
    }
    // The engine's host time per step not overlapped with the GPU.
    if (r.step_cpu_ms >= 0) f.host_s = r.step_cpu_ms * 1e-3;
    else if (job.engine == Engine::Vllm && vllm_before_0_6(job)) f.host_share = kVllm05HostShare;
    else f.host_s = fitted_step_host_s(job);  // vLLM V0 from 0.6: fitted (cluster/calibration.hpp); others 0
    return f;
}

}  // namespace vramcalc
