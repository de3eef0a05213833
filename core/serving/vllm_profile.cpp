// vLLM's profile run (worker/model_runner.py profile_run in V0,
// v1/worker/gpu_model_runner.py profile_run in V1): a dummy batch of
// max_num_batched_tokens tokens over max_num_seqs sequences, then the sampler
// on one logit row per sequence; the peak of torch-allocated memory above the
// weights is the activation memory the KV budget leaves room for.
#include <algorithm>

#include "hardware/gpus.hpp"
#include "serving/vllm_parts.hpp"
#include "serving/working_set.hpp"
#include "text/units.hpp"

namespace vramcalc {

double VllmProfile::peak() const {
    return std::max({forward + images_kept, sampler + images_kept + moe_kept, encoder}) + fixed;
}

// engine/arg_utils.py (_set_default_args in V1, SchedulerConfig in V0): max_num_seqs and
// max_num_batched_tokens when the user gives neither, by the version's rules (the preset's
// fields): V1 from 70 GiB (and, from 0.9, not an A100) takes the large defaults; V0 without
// chunked prefill schedules max(max_model_len, 2048) tokens so one whole prompt fits a step,
// and turns chunked prefill on past 32K (the preset's v0_auto_chunked_above).
VllmSetup vllm_setup(const Plan& p, double device) {
    const Job& job = p.job;
    VllmSetup v;
    v.max_model_len = job.max_model_len > 0 ? job.max_model_len : job.seq;
    v.large_gpu = job.large_gpu_gib > 0 && device >= job.large_gpu_gib * kGiB && !(job.a100_small && job.gpu_is_a100);
    const bool v1 = job.vllm_engine == VllmEngine::V1;
    v.chunked = v1 || job.chunked_prefill_given
                    ? job.chunked_prefill
                    : job.v0_auto_chunked_above > 0 && v.max_model_len > job.v0_auto_chunked_above;
    if (job.max_num_batched_tokens > 0) v.tokens = job.max_num_batched_tokens;
    else if (!v.chunked) v.tokens = v1 ? v.max_model_len : std::max<int64_t>(v.max_model_len, 2048);
    else if (!v1) v.tokens = job.tokens_chunked_v0;
    else if (job.vllm_offline) v.tokens = v.large_gpu ? job.tokens_offline_large : job.tokens_offline;
    else v.tokens = v.large_gpu ? job.tokens_default_large : job.tokens_default;
    v.seqs = job.max_num_seqs > 0 ? job.max_num_seqs : v.large_gpu ? job.seqs_default_large : job.seqs_default;
    // V1 (0.11 arg_utils.py): max_num_seqs = min(default, max_num_batched_tokens).
    if (v1 && job.max_num_seqs <= 0) v.seqs = std::min(v.seqs, v.tokens);
    return v;
}

namespace {

// Attention without a fused kernel (the job's attention "eager": vLLM's naive paths, e.g. the
// ROCm backend without flash attention, or Gemma 3's naive_attn_with_masks for prompts with
// images) goes through PyTorch's math SDPA (aten/src/ATen/native/transformers/attention.cpp
// _scaled_dot_product_attention_math), which upcasts half-precision q, k and v to fp32: per
// sequence of s tokens, the fp32 scores and their fp32 softmax (8 bytes per head per s²), the
// additive masks (4 bytes per s²: Gemma 3's global and local fp16 masks, gemma3_mm.py
// prepare_attn_masks), and fp32 copies of q, k, v with the scaled q and kᵀ and the GQA-repeated
// k, v (24 bytes per head per token per head dimension). The loop runs one sequence at a time.
double eager_profile_scores(const Plan& p, double s, int64_t tp) {
    if (p.job.attention != Attention::Eager) return 0;
    const ModelConfig& c = p.m.config;
    const double heads = static_cast<double>(need_dim(c.heads, "num_attention_heads", "attention scores")) / static_cast<double>(tp);
    const double hd = static_cast<double>(c.head_dim > 0 ? c.head_dim : c.hidden / c.heads);
    return heads * s * s * 8 + s * s * 4 + 24 * s * heads * hd;
}

}  // namespace

VllmProfile vllm_profile(const Plan& p, const Layout& l, const VllmSetup& v, bool samples, bool last_stage, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const double T = static_cast<double>(v.tokens), dtype = p.compute.bits / 8;
    const double h = static_cast<double>(need_dim(c.hidden, "hidden_size", "the profile run"));
    // V1 _dummy_run splits the tokens over min(tokens, max_num_seqs) requests; V0 over max_num_seqs.
    const int64_t n = std::max<int64_t>(1, std::min(v.seqs, v.tokens));
    const double per_seq = T / static_cast<double>(n);
    VllmProfile r;
    const double layer = layer_working_set(p, T, l.tp), scores = eager_profile_scores(p, per_seq, l.tp);
    // A stage that hands on (pipeline parallel) keeps its IntermediateTensors: hidden states and residual.
    const double stage_out = last_stage ? 0 : 2 * T * h * dtype;
    r.forward = layer + scores + stage_out;
    const EncoderProfile enc = encoder_profile(p, l, v, explain);
    r.encoder = enc.peak;
    r.images_kept = enc.kept;
    r.images = enc.images;
    // Fused MoE (fused_moe/modular_kernel.py, SharedResizableBuffer workspace13, workspace2 and
    // fused_out; TritonExperts.workspace_shapes: (M, topk, max(N / 2, K)), (M, topk, max(N, K)),
    // (M, K) for M tokens, N = 2 · moe_intermediate / TP, K = hidden): sized by the forward and
    // kept, so they are still allocated while the sampler runs.
    if (job.moe_workspace_kept && c.is_moe()) {
        const double N = 2 * static_cast<double>(c.moe_intermediate) / static_cast<double>(l.tp), topk = static_cast<double>(c.experts_per_token);
        r.moe_kept = (T * topk * (std::max(N / 2, h) + std::max(N, h)) + T * h) * dtype;
    }
    const double V = static_cast<double>(need_dim(c.vocab, "vocab_size", "the profile run's sampler"));
    const double rows = static_cast<double>(n);
    if (samples) {
        // The logits of one row per request in the model dtype and, when the profile samples, the
        // sampler's temporaries (the preset's sampler_extra_bytes), beside the dummy run's hidden states.
        const double per_logit = dtype + (job.sampler_in_profile ? job.sampler_extra_bytes : 0);
        r.sampler = rows * V * per_logit + T * h * dtype;
        if (job.sampler_in_profile) r.fixed = job.sampler_fixed_mib * kMiB;
    } else if (last_stage && l.tp > 1) {
        // A V0 rank past the driver computes its shard of the logits before gathering them to the
        // driver (model_executor/layers/logits_processor.py _get_logits, tensor_model_parallel_gather).
        r.sampler = rows * V / static_cast<double>(l.tp) * dtype;
    }
    if (explain) {
        r.why = "profile run of " + count_text(v.tokens) + " tokens over " + count_text(n) + " sequences: one layer's temporaries " +
                gib_text(layer) + (scores > 0 ? " + eager attention over " + printf_text("%.0f", per_seq) + "-token sequences " + gib_text(scores) : "") +
                (stage_out > 0 ? " + the stage's outputs " + gib_text(stage_out) : "");
        if (samples)
            r.why += "; the sampler over " + count_text(n) + " rows × " + count_text(c.vocab) + " vocab × " +
                     printf_text("%.0f", dtype + (job.sampler_in_profile ? job.sampler_extra_bytes : 0)) + " bytes + the hidden states = " +
                     gib_text(r.sampler) + (r.fixed > 0 ? " + its workspace " + gib_text(r.fixed) : "") +
                     (r.moe_kept > 0 ? " + the fused-MoE workspaces kept from the forward " + gib_text(r.moe_kept) : "");
        else
            r.why += "; no sampler on this GPU";
        if (!enc.why.empty()) r.why += "; " + enc.why;
        r.why += "; peak " + gib_text(r.peak()) + " (torch peak increase, vLLM memory_profiling)";
    }
    return r;
}

// Non-torch memory: what the profile sees grow outside torch's allocator (NCCL communicators,
// cuBLAS workspaces, kernel modules). vLLM has no formula for it; the version's preset carries
// one published log's figure per GPU: overhead_gb on a GPU that samples, pp_overhead_gb on a
// pipeline stage that does not, and comm_buffers_gb more at TP > 1 where NCCL sets up NVLink
// SHARP buffers (nvls_gpu, serving/working_set.hpp); PCIe cards (issue #13061, 2 × RTX 4090)
// show no such growth.
double vllm_non_torch(const Plan& p, const Layout& l, bool samples, std::string* why) {
    const Job& job = p.job;
    const bool nvls = nvls_gpu(job);
    const double base = (l.pp > 1 && !samples ? job.pp_overhead_gb : job.overhead_gb) * kBytesPerGB;
    const double comm = l.tp > 1 && nvls ? job.comm_buffers_gb * kBytesPerGB : 0;
    if (why)
        *why = "non-torch memory " + gib_text(base + comm) + " (" +
               (l.pp > 1 && !samples ? std::string("a pipeline stage that does not sample") : std::string("cuBLAS, kernel modules")) +
               (comm > 0 ? "; NCCL NVLink SHARP buffers at TP " + count_text(l.tp) + " " + gib_text(comm) : "") +
               (job.vllm_context_in_budget ? "; the CUDA context and torch's cached blocks count against the budget" : "") + ")";
    return base + comm;
}

}  // namespace vramcalc
