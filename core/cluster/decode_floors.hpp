#pragma once
// What a decode step costs beyond reading its weights and KV: the serving engines as the planner runs them
// (one preset row per engine), and the floors of a step: each small kernel's minimum on the GPU, the fused-MoE
// kernels' minimum at small batch, the host's launches when no CUDA graph replays them, and the engine's
// scheduler per step where it does not overlap the GPU.
#include "cluster/cluster.hpp"
#include "cluster/dims.hpp"

namespace vramcalc {

// How each serving engine runs a decode step: data, one row per engine.
struct ServePreset {
    Engine engine;
    AllReduceImpl all_reduce;  // TP all-reduce inside the NVLink domain
    bool layer_split;          // splits a model across GPUs by layers only (no TP)
    bool fused_moe;            // routed experts in fused-MoE kernels (vLLM / SGLang Triton fused_moe)
    const char* source;
};
const ServePreset& serve_preset(Engine e);

struct DecodeFloors {
    bool cuda_graphs = true;  // the step replays CUDA graphs (else every kernel is launched by the host)
    double kernels_s = 0;     // the small kernels' GPU floors (norms, RoPE, attention core, routing)
    double moe_s = 0;         // the fused-MoE kernels' minimum beyond the expert weights they read
    double launch_s = 0;      // without CUDA graphs: the host's launches per step (the GPU waits when longer)
    double host_s = 0;        // the engine's scheduler and output processing per step, not overlapped
    double host_share = 0;    // or that host time as a share of the whole step (vLLM before 0.6)
};

// `s` holds the layout and the bytes a step reads (weights, KV); `bw` the GPU's memory bandwidth, B/s.
DecodeFloors decode_floors(const Model& model, const Job& job, const Dims& d, const ClusterRequest& r, const ServeResult& s,
                           double bw);

}  // namespace vramcalc
