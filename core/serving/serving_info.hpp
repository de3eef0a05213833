#pragma once
// What an inference engine's accounting says besides the per-term breakdown:
// its KV pool, the offload split, each GPU's share and whether the job fits
// (core/serving/).
#include <cstdint>
#include <string>
#include <vector>

namespace vramcalc {

// One GPU of a llama.cpp / Ollama split: the layers it holds and its buffers.
struct DeviceShare {
    int64_t layers = 0;           // repeating layers on this GPU
    bool output = false;          // holds the output layer (and its logits)
    double weights = 0, kv = 0, compute_buffer = 0, overhead = 0;
    double share = 0;             // its fraction of the split (-ts, or free memory)
    double total() const { return weights + kv + compute_buffer + overhead; }
};

struct ServingInfo {
    bool engine = false;          // an engine's own accounting decided the breakdown
    double device = 0;            // memory of one GPU as the engine sees it (0: no GPU chosen)
    double budget = 0;            // vLLM: utilization × device; SGLang: static fraction × device
    double kv_needed = 0;         // KV for batch × seq, per GPU
    double kv_per_token = 0;      // bytes per token if every attention layer kept it, per GPU
    double kv_per_request = 0;    // one max_model_len request (windows and SSM state included), per GPU
    double kv_pool = 0;           // vLLM/SGLang pool per GPU (negative: the budget is overdrawn)
    int64_t pool_blocks = 0, pool_tokens = 0;
    double max_concurrency = 0;   // max_model_len requests the pool holds at once
    int64_t max_model_len = 0;
    int64_t profile_tokens = 0;   // tokens in vLLM's profile run / SGLang's chunked prefill
    int64_t max_num_seqs = 0;     // vLLM: sequences per step (the profile's sampler rows)
    int64_t gpu_layers = 0, layers = 0;  // llama.cpp -ngl split
    double cpu_bytes = 0;         // system RAM: llama.cpp token_embd, CPU layers, their KV; offloaded caches
    double cpu_weights = 0;       // llama.cpp: of it, the weights (token_embd, CPU layers, experts in RAM)
    double compute_buffer = 0;    // llama.cpp ggml compute buffer on the GPU (the fullest GPU's)
    double offload_copy = 0;      // llama.cpp: of it, a RAM-resident matrix copied in for large batches (op offload)
    std::vector<DeviceShare> devices;  // llama.cpp / Ollama over several GPUs; the breakdown is the fullest's
    std::string split;            // how the layers were split ("-sm layer: 17 + 15 layers")
    std::string engine_version;   // vLLM: the version and accounting in force
    // vLLM's profile run and the memory around it, per GPU
    double profile_forward = 0;   // the forward pass of profile_tokens (this rank's)
    double profile_sampler = 0;   // the sampler's dummy batch (ranks that sample)
    double profile_encoder = 0;   // the vision encoder's dummy images and their cached outputs
    double non_torch = 0;         // memory outside torch the profile counts (NCCL, cuBLAS, kernels)
    double non_torch_quiet = 0, kv_quiet = 0;  // the same and the KV of a GPU that does not sample
    double cuda_graphs = 0;       // CUDA-graph memory (taken from the budget from 0.21, after it before)
    int64_t graphs = 0, capture_max = 0;  // graphs captured and the largest batch size
    bool graphs_in_budget = false;
    // SGLang's sliding-window pool
    int64_t swa_tokens = 0;       // tokens of the sliding-window layers' pool (full layers: pool_tokens)
    std::string weights_mix;      // GGUF per-tensor type mix
    std::string window_policy;    // how sliding-window layers are allocated by this engine
    // Issue 36: speculative decoding and multi-LoRA slots (core/serving/speculative.cpp, lora_slots.cpp)
    double spec_weights = 0;      // the draft's, head's or MTP layers' weights on this GPU
    double spec_params = 0;       // their parameters
    double spec_kv = 0;           // their KV in the pool (or beside it: llama.cpp), for the job's batch × seq
    double spec_kv_per_token = 0;
    double lora_slots = 0, lora_cpu = 0;  // adapter slots on the GPU, adapters cached in host RAM
    std::string spec_why, lora_why;
    bool fits = true;             // fits the chosen GPU (always true without one)
    std::string verdict;          // one sentence about the fit
};

}  // namespace vramcalc
