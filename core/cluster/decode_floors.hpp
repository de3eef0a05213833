#pragma once
// What a decode step costs beyond reading its weights and KV: the serving engines as the planner runs them
// (one preset row per engine), the kernels a step launches, and the floors of a step: each kernel's fixed cost
// on the GPU, the fused-MoE kernels' minimum at small batch, the host's launches when no CUDA graph replays
// them, and the engine's scheduler per step where it does not overlap the GPU.
#include "cluster/cluster.hpp"
#include "cluster/dims.hpp"

namespace vramcalc {

// How each serving engine runs a decode step: data, one row per engine.
struct ServePreset {
    Engine engine;
    AllReduceImpl all_reduce;  // TP all-reduce inside the NVLink domain
    bool layer_split;          // splits a model across GPUs by layers only (no TP)
    bool fused_moe;            // routed experts in fused-MoE kernels (vLLM / SGLang Triton fused_moe)
    bool kernel_inventory;     // the step's kernels counted from the engine's model code, each at the graph-replay cost
    const char* source;
};
const ServePreset& serve_preset(Engine e);

// The kernels of one decode step, counted from the engines' model code (decode_floors.cpp).
struct DecodeKernels {
    double per_layer = 0;  // vLLM / SGLang: every kernel a decoder layer launches (mean over dense and MoE layers)
    double per_step = 0;   // outside the layers: embedding, final norm, LM head, sampler
    double small = 0;      // the non-GEMM kernels per layer (norms, RoPE, attention core, routing)
    double gemms = 0;      // the GEMM launches per layer
};
DecodeKernels decode_kernels(const Model& model, const Job& job, const Dims& d);

struct DecodeFloors {
    bool cuda_graphs = true;  // the step replays CUDA graphs (else every kernel is launched by the host)
    double kernels = 0;       // kernels charged per step
    double kernel_each_s = 0; // what each costs beyond its bytes (vLLM / SGLang), or its floor (others)
    double kernels_s = 0;     // kernels × kernel_each_s
    double moe_s = 0;         // the fused-MoE kernels' minimum beyond the expert weights they read (others)
    double launch_s = 0;      // without CUDA graphs: the host's launches per step (the GPU waits when longer)
    double host_s = 0;        // the engine's scheduler and output processing per step, not overlapped
    double host_share = 0;    // or that host time as a share of the whole step (vLLM before 0.6)
};

// `s` holds the layout and the bytes a step reads (weights, KV); `bw` the GPU's memory bandwidth, B/s.
DecodeFloors decode_floors(const Model& model, const Job& job, const Dims& d, const ClusterRequest& r, const ServeResult& s,
                           double bw);

}  // namespace vramcalc
