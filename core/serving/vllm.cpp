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

// The RoPE tables vLLM builds with the model (core/model/config.cpp parse_rope: cos‖sin rows ×
// rotary_dim in the model dtype, on every GPU); "Model loading took" counts them with the
// weights. Gemma 3's linear ×8 RoPE: 1,048,576 × 256 × 2 B = 512 MiB + its local 64 MiB.
double rope_table_bytes(const Plan& p) {
    const ModelConfig& c = p.m.config;
    return static_cast<double>(c.rope_rows + c.rope_rows_local) * static_cast<double>(c.rotary_dim) * p.compute.bits / 8;
}

// vLLM pads gpt-oss's MXFP4 experts for its MoE kernels (quantization/mxfp4.py
// Mxfp4MoEMethod.create_weights, the backend from get_mxfp4_backend): Triton (triton_kernels, sm90
// up to sm110) rounds each rank's intermediate up to 64; Marlin (the fallback: A100 and other GPUs
// below sm90) rounds it up to 128 and the hidden size up to 256 ("the moe marlin kernel requires
// that for each linear n % 256 == 0 and k % 128 == 0"). Per expert: w13 2I × h/2 bytes of E2M1
// pairs, 2I × h/32 E8M0 scales and 2I bf16 biases; w2 h × I/2, h × I/32 and h biases.
double mxfp4_padding_bytes(const Plan& p, const Layout& l) {
    const ModelConfig& c = p.m.config;
    if (p.shipped == nullptr || p.shipped->method != "mxfp4" || !c.is_moe()) return 0;
    auto round_up = [](int64_t x, int64_t m) { return (x + m - 1) / m * m; };
    auto expert = [](double I, double h) { return 2 * I * (h / 2 + h / 32 + 2) + h * (I / 2 + I / 32 + 2); };
    const int64_t I = (c.moe_intermediate > 0 ? c.moe_intermediate : c.intermediate) / std::max<int64_t>(1, l.tp);
    const bool triton = p.job.gpu_is_hopper;
    const int64_t Ip = round_up(I, triton ? 64 : 128), hp = triton ? c.hidden : round_up(c.hidden, 256);
    const double per_expert = expert(static_cast<double>(Ip), static_cast<double>(hp)) - expert(static_cast<double>(I), static_cast<double>(c.hidden));
    const double moe_layers = static_cast<double>(c.layers - c.dense_layers) / static_cast<double>(l.pp);
    return per_expert * static_cast<double>(c.experts) * moe_layers;
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
    const double rope = rope_table_bytes(p), pad = mxfp4_padding_bytes(p, l);
    b.bytes[kWeights] += rope + pad;
    if (explain && rope > 0)
        b.why[kWeights] += " + vLLM's RoPE cos/sin tables " + gib_text(rope) + " (" +
                           count_text(c.rope_rows + c.rope_rows_local) + " positions × " + count_text(c.rotary_dim) + ")";
    if (explain && pad > 0)
        b.why[kWeights] += " + the MXFP4 experts' padding for " + std::string(job.gpu_is_hopper ? "Triton" : "Marlin") +
                           " kernels " + gib_text(pad);
    // The formula closes on the row's figure once vLLM's own additions are counted.
    if (explain && (rope > 0 || pad > 0)) b.why[kWeights] += " = " + gib_text(b.bytes[kWeights]);
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
