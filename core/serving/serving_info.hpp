#pragma once
// What an inference engine's accounting says besides the per-term breakdown:
// its KV pool, the offload split and whether the job fits (core/serving.cpp).
#include <cstdint>
#include <string>

namespace vramcalc {

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
    int64_t gpu_layers = 0, layers = 0;  // llama.cpp -ngl split
    double cpu_bytes = 0;         // system RAM: llama.cpp token_embd, CPU layers, their KV
    double compute_buffer = 0;    // llama.cpp ggml compute buffer on the GPU
    std::string weights_mix;      // GGUF per-tensor type mix
    std::string window_policy;    // how sliding-window layers are allocated by this engine
    bool fits = true;             // fits the chosen GPU (always true without one)
    std::string verdict;          // one sentence about the fit
};

}  // namespace vramcalc
