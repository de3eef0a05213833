// SGLang: a static fraction of the memory free at start holds the weights and
// the KV pool; the chunked prefill's activations and the CUDA graphs live in
// what is left.
#include <algorithm>

#include "serving/engines.hpp"
#include "serving/vllm_parts.hpp"
#include "serving/working_set.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// sglang/srt/server_args.py ServerArgs.__post_init__ (v0.3.6 – v0.4.x): by TP size.
double sglang_fraction(const Job& job, const Layout& l) {
    if (job.mem_fraction_static > 0) return job.mem_fraction_static;
    return l.tp >= 16 ? 0.79 : l.tp >= 8 ? 0.81 : l.tp >= 4 ? 0.85 : l.tp >= 2 ? 0.87 : 0.88;
}

// server_args.py (v0.5.2) chunked_prefill_size when not given: by GPU memory, 2048 below 35 GiB,
// 8192 below 160 GiB, 16384 above.
int64_t chunk_tokens(const Job& job, double device) {
    if (job.max_num_batched_tokens > 0) return job.max_num_batched_tokens;
    return device < 35 * kGiB ? 2048 : device < 160 * kGiB ? 8192 : 16384;
}

// server_args.py (v0.5.2) cuda_graph_max_bs when not given: 8 (TP < 4) or 80 below 35 GiB, else
// 160; the capture list [1, 2, 4, 8] + range(16, max_bs + 1, 8)
// (model_executor/cuda_graph_runner.py get_batch_sizes_to_capture).
int64_t graph_batches(const Job& job, const Layout& l, double device, int64_t& largest) {
    largest = job.cuda_graph_max_bs > 0 ? job.cuda_graph_max_bs : device < 35 * kGiB ? (l.tp < 4 ? 8 : 80) : 160;
    int64_t n = 0;
    for (int64_t s : {1, 2, 4, 8}) n += s <= largest;
    for (int64_t s = 16; s <= largest; s += 8) ++n;
    return n;
}

}  // namespace

// sglang model_executor/model_runner.py profile_max_num_token (v0.3.6 – v0.5.2): total = the
// memory free after NCCL starts (device − context), rest = free after loading − total × (1 −
// mem_fraction_static) = fraction × total − weights; tokens = rest // cell_size (every layer's
// K and V per token). Hybrid sliding-window models (v0.5.2, unless --disable-hybrid-swa-memory)
// split the same bytes between two pools: full_tokens = tokens × layers / (ratio × swa_layers +
// full_layers), swa_tokens = full_tokens × swa_full_tokens_ratio (0.8).
void sglang_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, const KvCost& k, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    if (s.device <= 0) throw InputError("job.gpu", "SGLang sizes its KV pool from the device memory: choose a GPU or give device_gib");
    const double frac = sglang_fraction(job, l);
    const double context = job.overhead_gb * kBytesPerGB + (l.tp > 1 && nvls_gpu(job) ? job.comm_buffers_gb * kBytesPerGB : 0);
    const double total = s.device - context;
    s.budget = frac * total;
    s.kv_pool = s.budget - b.bytes[kWeights];
    s.profile_tokens = chunk_tokens(job, s.device);
    s.max_model_len = job.max_model_len > 0 ? job.max_model_len : job.seq;
    const double act = layer_working_set(p, static_cast<double>(s.profile_tokens), l.tp);
    int64_t largest = 0;
    const int64_t batches = job.disable_cuda_graph ? 0 : graph_batches(job, l, s.device, largest);
    // Whole-model decode graphs (cuda_graph_runner.py): the pool holds one layer's temporaries at
    // the largest batch; each graph its executable, per layer as vLLM's (graph_layer_kib: no SGLang
    // capture log names a model), and the capture stream its cuBLAS workspace.
    const double layers_here = static_cast<double>(std::max<int64_t>(1, c.layers)) / static_cast<double>(std::max<int64_t>(1, l.pp));
    const double graphs = batches > 0 ? graph_exec_bytes(p, layers_here, static_cast<double>(batches)) +
                                            layer_working_set(p, static_cast<double>(largest), l.tp) + cublas_workspace_bytes(job)
                                      : 0;
    const double per_token = k.every_token();
    const int64_t swa_layers = c.kv_kind_count(ModelConfig::KvKind::Sliding), L = c.layers / std::max<int64_t>(1, l.pp);
    const bool hybrid = swa_layers > 0 && swa_layers < c.layers && !job.disable_hybrid_swa_memory && !job.swa_full && c.sliding_window > 0;
    const double tokens = per_token > 0 && s.kv_pool > 0 ? s.kv_pool / per_token : 0;
    double full_tokens = tokens, window_need = static_cast<double>(job.seq);
    if (hybrid) {
        const double swa = static_cast<double>(swa_layers) / static_cast<double>(c.layers) * static_cast<double>(L);
        const double full = static_cast<double>(L) - swa;
        full_tokens = tokens * static_cast<double>(L) / (job.swa_full_tokens_ratio * swa + full);
        s.swa_tokens = static_cast<int64_t>(full_tokens * job.swa_full_tokens_ratio);
        window_need = static_cast<double>(std::min<int64_t>(job.seq, c.sliding_window));
    }
    s.pool_tokens = static_cast<int64_t>(full_tokens);
    // One request: full layers keep every token, sliding layers (the SWA pool) their window
    // (memory/kv.cpp kept_window_tokens); the concurrency is the tighter of the two pools.
    s.kv_per_request = kv_bytes(p, k, s.max_model_len, 1);
    const double len = static_cast<double>(s.max_model_len);
    s.max_concurrency = s.kv_pool <= 0 || s.kv_per_request <= 0 ? 0
                        : hybrid ? std::min(full_tokens / len, static_cast<double>(s.swa_tokens) /
                                                                   static_cast<double>(std::min<int64_t>(s.max_model_len, c.sliding_window)))
                                 : s.kv_pool / s.kv_per_request;
    s.kv_needed = kv_for_batch(p, k, job.seq, job.batch);
    s.cuda_graphs = graphs;
    s.graphs = batches;
    s.capture_max = largest;
    b.bytes[kKvCache] = std::max(0.0, s.kv_pool);
    b.bytes[kActivations] = act;
    b.bytes[kBuffers] = graphs;
    b.bytes[kOverhead] = context;
    const double headroom = (1 - frac) * total;
    const double batch = static_cast<double>(job.batch);
    const bool pool_holds = hybrid ? full_tokens >= batch * static_cast<double>(job.seq) &&
                                         static_cast<double>(s.swa_tokens) >= batch * window_need
                                   : s.kv_pool >= s.kv_needed;
    s.fits = s.kv_pool > 0 && pool_holds && act + graphs <= headroom;
    s.verdict = std::string(s.fits ? "fits" : "does not fit") + ": KV pool " + gib_text(std::max(0.0, s.kv_pool)) + " = " +
                count_text(s.pool_tokens) + " tokens" +
                (hybrid ? " for the full-attention layers and " + count_text(s.swa_tokens) + " for the sliding-window layers (swa_full_tokens_ratio " +
                              printf_text("%.2f", job.swa_full_tokens_ratio) + ")"
                        : "") +
                " (mem_fraction_static " + printf_text("%.2f", frac) + "); prefill chunk of " + count_text(s.profile_tokens) +
                " tokens (" + gib_text(act) + ") and CUDA graphs (" + gib_text(graphs) + ") in the " + gib_text(headroom) + " left outside it";
    if (explain) {
        b.why[kKvCache] = s.verdict;
        b.why[kActivations] = "chunked prefill of " + count_text(s.profile_tokens) + " tokens (chunked_prefill_size): one layer's temporaries, outside the static fraction";
        b.why[kBuffers] = batches > 0 ? "CUDA graphs for " + count_text(batches) + " batch sizes up to " + count_text(largest) +
                                            " (cuda_graph_max_bs), captured after the pool: " + gib_text(graphs)
                                      : "none (CUDA graphs disabled)";
        b.why[kOverhead] = "CUDA context and communication buffers " + gib_text(context) + ", outside the static fraction's base";
    }
}

}  // namespace vramcalc
