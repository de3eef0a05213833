#pragma once
// The cluster planner: how many GPUs, connected how, for how long.
// A training step is timed op by op (cluster/step_ops.hpp: each GEMM, the
// attention kernel, the streaming ops, casts, loss and optimizer at the rates
// published measurements give, cluster/kernels.hpp) plus the bubble of the
// pipeline schedule plus every collective at the link it crosses, less what
// overlaps; serving is timed as a roofline (prefill bound by compute, decode by
// memory bandwidth) plus the engine's all-reduces and per-step overhead.
// Memory per layout comes from the estimate's own functions (compute_breakdown).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cluster/collectives.hpp"
#include "text/values.hpp"
#include "cluster/kernels.hpp"
#include "cluster/step_ops.hpp"
#include "hardware/gpus.hpp"
#include "answers/estimate.hpp"

namespace vramcalc {

// Stated assumptions; every one is settable in the request.
struct Assumptions {
    double compute_efficiency = 0;     // the single override: every matmul/attention FLOP at this fraction of peak (0 = per op)
    double memory_efficiency = 0.8;    // achieved fraction of peak memory bandwidth when decoding
    double link_efficiency = 0.8;      // achieved fraction of link line rate in collectives
    double overlap = 0.7;              // fraction of compute time that can hide data-parallel / CP traffic
    double latency_us = -1;            // a flat latency per ring step of a collective; < 0: NCCL's by protocol and hop
    double interference = 0.189;       // compute slowdown while communication overlaps it (measured mean)
    double gap_fraction = 0;           // kernel gaps per second of kernel time (fitted per framework; calibration.hpp)
    double power_w = 0;                // board power limit (0: the GPU's own)
    double grad_reduce_bytes = 4;      // gradients reduced in fp32 (Megatron and torchtitan default)
    bool overlap_tp = false;           // TP collectives hidden under compute too (async TP, TP comm overlap)
    bool overlap_ep = false;           // EP all-to-alls hidden under compute too (DeepSeek's DualPipe)
};

// Which TP collectives a framework hides under compute (its step preset, parse.cpp): the backward's
// reduce-scatters of the input gradients behind the weight-gradient GEMMs without any switch, and whether the
// TP overlap switch (async TP, TP comm overlap) also hides them; it always hides the forward's collectives
// (and the recomputed forward's) and the backward's all-gathers.
struct TpOverlap {
    bool bwd_rs_under_wgrad = false;  // without the switch: the backward's reduce-scatters overlap the wgrad GEMMs
    bool bwd_rs_overlapped = false;   // with the switch: the backward's reduce-scatters are overlapped too
};

// Pipeline schedules (torch.distributed.pipelining, Megatron, DeepSeek-V3's DualPipe).
enum class Schedule { GPipe, OneF1B, Interleaved, ZeroBubble, ZeroBubbleV, DualPipe };
const char* schedule_name(Schedule s);

struct Parallel {
    int64_t tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
    int zero = 0;
    int64_t microbatches = 1;    // micro-batches per step per data-parallel replica (gradient accumulation)
    int64_t virtual_stages = 1;  // interleaved pipeline: model chunks per GPU
    int64_t gpus() const { return tp * pp * cp * dp; }
};

struct ClusterRequest {
    Gpu gpu{};               // catalog entry with any overrides applied
    Fabric fabric{};
    Assumptions assume;
    int64_t gpus = 1;         // default: the job's gpus
    bool auto_layout = true;  // recommend the layout (training) / choose the smallest that fits (serving)
    Parallel layout;          // when not automatic (default: the job's tp, pp and zero when it sets them)
    int64_t global_batch = 0; // sequences per step; 0 = one micro-batch per data-parallel GPU
    std::string matmul_dtype; // "bf16", "fp8", "fp4", "tf32", "fp32": which peak the linear layers run at
    double peak_tflops = 0;   // that peak for this GPU
    double peak16_tflops = 0; // the dense BF16 peak (attention, norms, the MFU denominator)
    const LowPrecision* recipe = nullptr;  // low-precision linears (torchao float8, TE, MX/NV FP4); null = bf16
    bool fp8_all_gather = false;  // FSDP all-gathers the converted weights in fp8 (torchtitan enable_fsdp_float8_all_gather)
    AttnKernel attention = AttnKernel::Fa2;
    bool fused = false;       // fused streaming kernels (torch.compile / Transformer Engine)
    Framework framework = Framework::Custom;  // the job's training framework (its fitted kernel gaps)
    bool overlap_pp = false;  // interleaved-schedule sends overlap compute (Megatron overlap_p2p_comm)
    TpOverlap tp_overlap;     // which TP collectives hide (the framework's step preset)
    Schedule schedule = Schedule::OneF1B;
    int64_t node_limit = 0;   // EP: nodes a token's experts may span (DeepSeek-V3: 4); 0 = no limit
    double dispatch_bytes = 0;  // EP dispatch bytes per element (DeepSeek-V3: fp8 = 1); 0 = the compute dtype
    Rates rates;              // the per-op rates of this GPU
    double token_budget = 0;  // tokens to train on (0 = not asked)
    double price_per_gpu_hour = 0;
    int64_t concurrency = 1;  // serving: sequences decoded together per replica (default: the job's batch)
    int64_t prompt_tokens = 1024;  // default: the job's seq − new_tokens
    int64_t output_tokens = 256;   // default: the job's new_tokens when set
    double step_cpu_ms = -1;       // serving: the engine's host time per decode step (< 0: its preset's)
    int cuda_graphs = -1;          // serving: decode replays CUDA graphs (-1: the engine's default)
    bool load_given = false;       // serving: concurrency, prompt or output tokens set by the request
    Topology topology() const;
};

// Reads the "cluster" object; absent fields keep defaults. The job gives the
// mode, dtype, micro-batch, sequence length and checkpointing. Throws
// InputError("cluster.<field>", ...).
ClusterRequest parse_cluster(const nlohmann::json& cluster, const Job& job);
// The kind of a cluster field, for values given as text; false for an unknown field.
bool cluster_field_kind(const std::string& key, ValueKind& kind);

struct CommTerm {
    const char* key;     // "tp", "pp", "dp", "ep", "cp"
    std::string label;   // "TP all-reduce", "FSDP all-gather + reduce-scatter", ...
    std::string link;    // the link it crosses
    int64_t group = 1;   // GPUs in the collective
    double bytes = 0;    // per GPU per step, as counted by the formula in `why`
    double time_s = 0;   // if nothing overlapped
    double exposed_s = 0;
    std::string why;
};

struct TrainStep {
    Parallel layout;
    bool valid = true;
    std::string invalid_reason;
    double tokens_per_step = 0;
    double model_flops_per_token = 0;     // 6·N + attention (MFU numerator)
    double hardware_flops_per_token = 0;  // including recomputation
    double compute_s = 0, bubble_s = 0;
    double slowest = 1;          // the slowest GPU of the group over one alone (compute_s includes it)
    double overlapped_s = 0;     // communication hidden under compute
    double interference_s = 0;   // what the hidden communication costs the compute beside it
    double gaps_s = 0;           // kernel gaps (fitted per framework)
    std::vector<Op> ops;                  // the compute, op by op (per step, slowest stage)
    std::string bubble_why;
    std::string schedule;                 // the pipeline schedule in force ("no pipeline" for one stage)
    std::vector<CommTerm> comms;
    double step_s = 0, tokens_per_s = 0, tokens_per_s_per_gpu = 0, mfu = 0, hfu = 0;
    std::string bound_key;  // "compute", "bubble" or a CommTerm key
    double memory_bytes = 0;  // per GPU, from the memory model
    bool fits = false;
};

struct ServeResult {
    int64_t tp = 1, pp = 1, replicas = 1;
    double memory_bytes = 0;
    bool fits = false;
    double weights_read_bytes = 0, kv_read_bytes = 0;  // per GPU per decode step (KV: the mean over the output)
    double kv_prompt_bytes = 0, kv_end_bytes = 0;       // KV the running sequences hold at the prompt / at the end
    const char* allreduce = "none";                     // the engine's TP all-reduce algorithm at decode
    double decode_memory_s = 0, decode_compute_s = 0, decode_comm_s = 0, token_s = 0;
    double decode_kernel_s = 0;  // the kernels' fixed costs per step (vLLM / SGLang: every kernel; others: the small ones' floors)
    double decode_kernels = 0;   // kernels charged per step
    double decode_kernel_each_s = 0;  // what each costs: the graph-replay fixed cost, or the small-kernel floor
    double decode_moe_floor_s = 0;  // the fused-MoE kernels' minimum beyond the experts they read
    double decode_launch_s = 0;  // without CUDA graphs: the host's launches per step
    double decode_host_s = 0;    // the engine's host time per step, not overlapped
    bool cuda_graphs = true;
    int64_t alt_tp = 0, alt_pp = 0;          // a smaller split that also holds (replicated over the rest)
    int64_t verdict_tp = 0, verdict_pp = 0;  // the verdict's split, when it does not hold and another was timed
    double bound_tokens_per_s = 0;  // per sequence at 100 % of memory bandwidth, no communication
    double tokens_per_s_per_seq = 0, tokens_per_s_replica = 0, tokens_per_s_cluster = 0;
    double prefill_s = 0, ttft_s = 0;
    // Time per output token under continuous batching at this concurrency (what benchmark_serving reports as
    // TPOT): the decode step plus the prefills of the other sequences' next prompts, which the engine runs
    // between decode steps: (concurrency − 1) prompts every output_tokens steps.
    double tpot_s = 0;
    bool decode_compute_bound = false;
    // llama.cpp, Ollama and MLX: timed by the local speed model (core/local/speed.cpp), whose own
    // cross-validated range (decode / prefill, as fractions of the figure) replaces the engines' one.
    bool local_speed = false;
    double local_decode_lo = 0, local_decode_hi = 0;
};

// Memory per GPU of the job as laid out (its tp, pp, cp, ep, zero and gpus) on this GPU, and whether it fits,
// both as the verdict computes them (answers/fit.hpp step_on_device and holds).
struct LayoutMemory {
    double bytes = 0;
    bool fits = false;
};
LayoutMemory layout_memory(const Model& model, const Job& job, const Gpu& gpu);
// A training layout's memory per GPU (layout_memory, with the planner's expert split where the memory model
// has none); `fits` as the verdict tests it.
double train_memory(const Model& model, const Job& job, const Parallel& p, const Gpu& gpu, bool& fits);
TrainStep train_step(const Model& model, const Job& job, const ClusterRequest& r, const Parallel& p);
// Candidate layouts for r.gpus GPUs, fastest fitting first.
std::vector<TrainStep> rank_layouts(const Model& model, const Job& job, const ClusterRequest& r);
ServeResult serve(const Model& model, const Job& job, const ClusterRequest& r);
// The training layout the planner's answer times (answer_train.cpp): the request's; else the verdict's when it
// fits, or when no layout does; else the fastest that fits. `ranked` is rank_layouts' answer (computed when null
// and needed); `why` (optional) says why it is not the verdict's layout.
TrainStep timed_training(const Model& model, const Job& job, const ClusterRequest& r, const std::vector<TrainStep>* ranked, std::string* why);

// The whole answer as JSON text, numbers and the texts the page shows.
std::string cluster_answer(const Model& model, const Job& job, const ClusterRequest& r);

}  // namespace vramcalc
