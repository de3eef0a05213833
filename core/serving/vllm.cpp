// vLLM: the KV pool is what gpu_memory_utilization × device leaves after the
// weights, the profile run's peak and non-torch memory (and, from 0.21, the
// CUDA graphs' estimate), as the job's vllm_version measures them.
#include <algorithm>
#include <cmath>

#include "serving/engines.hpp"
#include "serving/vllm_parts.hpp"
#include "serving/working_set.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// The bytes one token takes in a block. V0's blocks span every attention layer
// (worker/cache_engine.py get_cache_block_size: num_attention_layers), Mllama's
// cross-attention layers included: their blocks hold the image's states, one cross block
// table per sequence over the encoder length (core/block_manager.py). V1 pages each layer's
// keys and values (v1/kv_cache_interface.py AttentionSpec); it runs no cross-attention model
// of this kind (Mllama was removed with V0, #24907).
double block_token_bytes(const Plan& p, const KvCost& k, int64_t cross_layers) {
    const ModelConfig& c = p.m.config;
    const int64_t full = c.layers - cross_layers;
    if (cross_layers <= 0 || full <= 0) return k.every_token();
    return k.every_token() * static_cast<double>(c.layers) / static_cast<double>(full);
}

}  // namespace

// The memory profiling of the job's vLLM version (worker/worker.py determine_num_available_blocks
// in V0, v1/worker/gpu_worker.py determine_available_memory in V1): budget = utilization × device;
// KV = budget − weights − the profile run's peak − non-torch memory (− the CUDA-graph estimate
// from 0.21). With tensor parallelism every rank profiles and the pool is the smallest (V0: the
// driver, the only rank that samples; V1: every rank gathers the logits); with pipeline stages
// the last stage samples and the first hands on its outputs: the pool is the smaller of the two.
void vllm_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, const KvCost& k, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    if (s.device <= 0) throw InputError("job.gpu", "vLLM sizes its KV pool from the GPU's memory: choose your GPU, or give its memory");
    const VllmSetup v = vllm_setup(p, s.device);
    s.max_model_len = v.max_model_len;
    s.profile_tokens = v.tokens;
    s.max_num_seqs = v.seqs;
    s.engine_version = "vLLM " + job.vllm_version + ": the accounting of " + job.vllm_accounting + ", " +
                       vllm_engine_name(job.vllm_engine) + " engine";
    const bool v1 = job.vllm_engine == VllmEngine::V1;
    // The stage that samples (the last, or the only one) and, with stages, the first.
    const VllmProfile last = vllm_profile(p, l, v, true, true, explain);
    std::string nt_why;
    const double nt_last = vllm_non_torch(p, l, true, explain ? &nt_why : nullptr);
    const VllmProfile first = l.pp > 1 ? vllm_profile(p, l, v, false, false, false) : last;
    const double nt_first = l.pp > 1 ? vllm_non_torch(p, l, false, nullptr) : nt_last;
    const bool last_binds = last.peak() + nt_last >= first.peak() + nt_first;
    const VllmProfile& prof = last_binds ? last : first;
    const double act = prof.peak(), non_torch = last_binds ? nt_last : nt_first;
    // This GPU's profile without the sampler: the first stage's, or a V0 TP rank's that does not sample.
    const VllmProfile quiet = l.pp > 1 ? first : vllm_profile(p, l, v, v1, true, false);
    s.profile_forward = quiet.peak();
    s.profile_sampler = last.sampler;
    s.profile_encoder = last.encoder;
    s.non_torch = non_torch;
    s.non_torch_quiet = l.pp > 1 ? nt_first : vllm_non_torch(p, l, v1, nullptr);
    const VllmGraphs g = vllm_graphs(p, l, v, explain);
    s.cuda_graphs = g.bytes;
    s.graphs = g.count;
    s.capture_max = g.largest;
    s.graphs_in_budget = job.cudagraph_in_budget;
    s.budget = job.gpu_memory_utilization * s.device;
    const double W = b.bytes[kWeights];
    s.kv_pool = s.budget - W - act - non_torch - (s.graphs_in_budget ? g.bytes : 0);
    s.kv_quiet = s.budget - W - s.profile_forward - s.non_torch_quiet - (s.graphs_in_budget ? g.bytes : 0);
    const int64_t cross = c.vision.tiles > 1 ? c.kv_kind_count(ModelConfig::KvKind::Linear) : 0;
    const double block = static_cast<double>(job.block_size) * block_token_bytes(p, k, cross);
    s.pool_blocks = s.kv_pool > 0 && block > 0 ? static_cast<int64_t>(std::floor(s.kv_pool / block)) : 0;
    s.pool_tokens = s.pool_blocks * job.block_size;
    s.kv_per_request = kv_bytes(p, k, s.max_model_len, 1);
    s.kv_needed = kv_for_batch(p, k, job.seq, job.batch);
    b.bytes[kActivations] = act;
    b.bytes[kOverhead] = non_torch;
    b.bytes[kBuffers] = g.bytes;
    b.bytes[kKvCache] = std::max(0.0, s.kv_pool);
    // vLLM refuses to start when one max_model_len request does not fit the pool (V1
    // kv_cache_utils.py check_enough_kv_cache_memory; V0 "larger than the maximum number of tokens
    // that can be stored in KV cache"); the job's batch × seq must fit it to run together. The
    // pool is handed out in whole blocks. Graphs captured after the pool come from the headroom
    // the budget leaves: they must fit it too.
    const double usable = block > 0 ? static_cast<double>(s.pool_blocks) * block : std::max(0.0, s.kv_pool);
    const double outside = s.graphs_in_budget ? 0 : g.bytes;
    const bool headroom = s.budget + outside <= s.device;
    s.fits = s.kv_pool > 0 && usable >= s.kv_per_request && usable >= s.kv_needed && headroom;
    // vLLM's "Maximum concurrency": the pool in whole blocks over one max_model_len request's KV
    // (get_max_concurrency_for_kv_cache_config), windows and state included; cut, not rounded.
    s.max_concurrency = s.kv_per_request > 0 ? usable / s.kv_per_request : 0;
    s.verdict = std::string(s.fits ? "fits" : "does not fit") + ": KV pool " + gib_text(std::max(0.0, s.kv_pool)) + " = " +
                count_text(s.pool_blocks) + " blocks × " + count_text(job.block_size) + " = " + count_text(s.pool_tokens) +
                " tokens; maximum concurrency for " + count_text(s.max_model_len) + " tokens per request: " +
                concurrency_text(s.max_concurrency) + "; batch " + count_text(job.batch) + " × " + count_text(job.seq) + " needs " +
                gib_text(s.kv_needed) +
                (headroom ? "" : "; the CUDA graphs (" + gib_text(g.bytes) + ") do not fit the " + gib_text(s.device - s.budget) +
                                     " the budget leaves (lower gpu_memory_utilization or set enforce_eager)");
    if (explain) {
        b.why[kActivations] = prof.why + (l.pp > 1 ? std::string("; the ") + (last_binds ? "last" : "first") +
                                                         " pipeline stage sets the pool" : "");
        b.why[kOverhead] = nt_why;
        b.why[kBuffers] = g.why;
        b.why[kKvCache] = s.engine_version + ": the rest of " + printf_text("%.2f", job.gpu_memory_utilization) + " × " +
                          gib_text(s.device) + " = " + gib_text(s.budget) + " after weights, activations, non-torch memory" +
                          (s.graphs_in_budget ? " and CUDA graphs" : "") + ": " + s.verdict;
    }
}

}  // namespace vramcalc
