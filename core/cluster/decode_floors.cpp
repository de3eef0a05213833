#include "cluster/decode_floors.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace vramcalc {
namespace {

const ServePreset kServePresets[] = {
    {Engine::Custom, AllReduceImpl::Nccl, false, true, "NCCL all-reduce"},
    // vLLM: custom_all_reduce.py (one-shot / two-shot up to 8 MiB, NCCL past it); fused_moe Triton kernels
    {Engine::Vllm, AllReduceImpl::VllmCustom, false, true, "vLLM custom all-reduce, fused_moe"},
    // SGLang: its TensorRT-LLM custom all-reduce kernels (sgl-kernel trt_reduce); fused_moe Triton kernels
    {Engine::Sglang, AllReduceImpl::TrtCustom, false, true, "SGLang TensorRT-LLM all-reduce, fused_moe"},
    // llama.cpp / Ollama: -sm layer, the default split: whole layers per GPU, run one after another; experts
    // through ggml's mul_mat_id (no fused-MoE floor measured)
    {Engine::LlamaCpp, AllReduceImpl::Nccl, true, false, "llama.cpp -sm layer"},
    {Engine::Ollama, AllReduceImpl::Nccl, true, false, "Ollama (llama.cpp) -sm layer"},
};

// A kernel's floor: "run a triton kernel with a single element read/write on an H100 and measure GPU
// time from the trace" = 2 µs (torchao roofline_utils.py KERNEL_LAUNCH_OVERHEAD_SEC).
constexpr double kKernelFloor = 2e-6;
// The fused-MoE kernels of one MoE layer at batch 1: 40.44 µs for both (gate-up and down) on Qwen3-30B-A3B
// FP8, TP 1 (vllm-project/vllm#24700, benchmarks/kernels/benchmark_moe.py, "Batch size: 1, Kernel time:
// 40.44 us"), against 11 µs for the 8 experts' 38 MB at 3.35 TB/s: a minimum of 20.2 µs per fused-MoE
// kernel, at every batch until the weights' read takes longer (237 µs at batch 64).
constexpr double kFusedMoeFloor = 40.44e-6 / 2;
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
    const double layers = d.layers, moe_share = d.layers > 0 ? d.moe_layers / d.layers : 0;
    const bool mla = model.config.is_mla();
    // Small kernels per layer, each at least the floor: 2 norms, RoPE on q and k, the attention core's 3
    // kernels (scores, softmax, weighted sum), the activation and its gate product, 2 residual adds = 11;
    // MLA's latent path 6 more (2 latent norms, the absorbed projections' 2 batched GEMMs, the rope split and
    // concatenation); a routed MoE layer's router top-k, softmax, weights, sort / align, gather and weighted sum
    // = 6 more. The GEMVs' own time is the weights they read.
    const double small = 11 + (mla ? 6 : 0) + 6 * moe_share;
    f.kernels_s = layers * small * kKernelFloor;
    // Fused-MoE kernels: at least their floor per kernel (gate-up and down), beyond the experts' read.
    if (preset.fused_moe && d.moe_layers > 0 && d.experts > 0) {
        const double expert_bytes = s.weights_read_bytes * (d.total_params > 0 ? d.routed_params / d.total_params : 0);
        const double per_layer_read = expert_bytes / std::max(1.0, d.moe_layers / static_cast<double>(s.pp)) /
                                      (bw * r.assume.memory_efficiency);
        f.moe_s = d.moe_layers * std::max(0.0, 2 * kFusedMoeFloor - per_layer_read);
    }
    // Without CUDA graphs the host launches every kernel: the small ones, the layer's GEMMs (4 dense, 3 more
    // for MLA, the router, 2 fused-MoE and 3 shared-expert ones) and 2 all-reduces under TP.
    if (!graphs) {
        const double gemms = 4 + (mla ? 3 : 0) + moe_share * 6;
        const double launches = layers * (small + gemms + (s.tp > 1 ? 2 : 0));
        f.launch_s = launches * kEagerLaunch;
    }
    // The engine's host time per step not overlapped with the GPU.
    if (r.step_cpu_ms >= 0) f.host_s = r.step_cpu_ms * 1e-3;
    else if (job.engine == Engine::Vllm && vllm_before_0_6(job)) f.host_share = kVllm05HostShare;
    return f;
}

}  // namespace vramcalc
