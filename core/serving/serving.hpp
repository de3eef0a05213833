#pragma once
// Inference as each engine allocates it: the working set of a forward pass,
// the KV cache, and the engines' own accounting (vLLM and SGLang give the KV
// pool whatever their budget leaves; llama.cpp splits layers between GPU and
// system RAM and reserves a ggml compute buffer).
#include <cstdint>
#include <string>

#include "job/layout.hpp"
#include "memory/terms.hpp"
#include "job/plan.hpp"
#include "serving/serving_info.hpp"

namespace vramcalc {


// Fills the inference terms of `b` (weights, activations, buffers, KV cache,
// and for engines with their own accounting the overhead) and `s`. Returns
// true when the engine set the overhead itself.
bool inference_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, bool explain);

// Without an engine, a prefill runs at most this many tokens at once (the engine-less default of
// one prefill chunk): SGLang's chunked_prefill_size under 160 GiB (srt/server_args.py, v0.5.2)
// and vLLM V1's max_num_batched_tokens for the LLM class below 70 GiB (engine/arg_utils.py),
// both 8,192. Jobs of fewer tokens than this prefill whole, as before.
constexpr double kPrefillChunk = 8192;

// Device memory of one GPU for the job (device_gib, else the chosen GPU), 0 if none.
double device_bytes(const Job& job);

// vLLM and SGLang size their KV pool from the device (a fraction of it, less
// weights and activations): whether a job fits a GPU is their pool test on
// that GPU, not a total compared with its size.
inline bool engine_budgets_device(const Job& job) {
    return !trains(job) && (job.engine == Engine::Vllm || job.engine == Engine::Sglang);
}

}  // namespace vramcalc
