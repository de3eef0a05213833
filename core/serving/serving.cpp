#include "serving/serving.hpp"

#include <algorithm>
#include <cmath>

#include "hardware/gpus.hpp"
#include "machine/machine.hpp"
#include "memory/kv.hpp"
#include "memory/states.hpp"
#include "serving/engines.hpp"
#include "serving/extras.hpp"
#include "serving/working_set.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

double weights_on_gpu(const Plan& p, const Layout& l, std::string* why) {
    const ModelConfig& c = p.m.config;
    if (p.job.ep <= 1 && !p.job.dp_attention) return weights_term(p, l, uniform_share(p, l), why);
    // Expert parallelism: routed experts split over ep GPUs; everything else
    // TP-sharded, or replicated under data-parallel attention (SGLang
    // --enable-dp-attention, DeepSeek-V3 report §3.4: attention DP, experts EP).
    const double all = base_weights_bytes(p, nullptr);
    const double expert_bits = p.shipped ? p.shipped->bits : p.weights.bits;
    const double experts = std::min(all, sum_params(p.m.tensors, [](const Tensor& t) { return t.kind == TensorKind::RoutedExpert; }) *
                                             expert_bits / 8);
    const double rest = all - experts;
    const double attn_tp = p.job.dp_attention ? 1 : static_cast<double>(l.tp);
    const double pp = static_cast<double>(l.pp), ep = static_cast<double>(p.job.ep);
    const double w = rest / attn_tp / pp + experts / ep / pp;
    if (why)
        *why = "routed experts " + gb_text(experts) + " ÷ EP " + count_text(p.job.ep) + " + the rest " + gb_text(rest) +
               (p.job.dp_attention ? " replicated (data-parallel attention)" : " ÷ TP " + count_text(l.tp)) +
               (l.pp > 1 ? ", ÷ PP " + count_text(l.pp) : "") + " = " + gb_text(w) + " per GPU" +
               (c.is_moe() ? "" : " (no experts: EP changes nothing)");
    return w;
}

void check_ep(const Plan& p, const Layout& l) {
    const Job& job = p.job;
    if (job.ep > 1 && !p.m.config.is_moe())
        throw InputError("job.ep", "expert parallelism needs a mixture-of-experts model");
    if (job.ep > 1 && job.gpus % job.ep != 0)
        throw InputError("job.ep", "must divide gpus (" + count_text(job.gpus) + "), got " + count_text(job.ep));
    if (job.ep > 1 && p.m.config.experts % job.ep != 0)
        throw InputError("job.ep", "must divide the number of experts (" + count_text(p.m.config.experts) + "), got " + count_text(job.ep));
    if (job.dp_attention && job.ep <= 1)
        throw InputError("job.dp_attention", "data-parallel attention shards the experts: set ep > 1 as well");
    (void)l;
}

// `margin`: what the engine keeps free (llama.cpp's --fit leaves fit_target_mib on each GPU).
void fit_on_device(ServingInfo& s, double total, double margin = 0) {
    if (s.device <= 0) return;
    s.fits = total + margin <= s.device;
    s.verdict = std::string(s.fits ? "fits" : "does not fit") + ": " + gib_text(total) + " of " + gib_text(s.device) +
                (s.devices.size() > 1 ? " on the fullest of " + count_text(static_cast<int64_t>(s.devices.size())) + " GPUs" : " on the GPU");
}

}  // namespace

double device_bytes(const Job& job) {
    if (job.device_gib > 0) return job.device_gib * kGiB;
    if (job.machine.cpu_only) return 0;
    // A unified-memory machine: the GPU's share of the one memory, as the machine's settings make it.
    if (const UnifiedMachine* u = unified_machine(job.gpu)) {
        std::string source;
        return unified_gpu_share(job.machine, *u, source);
    }
    return job.gpu ? gpu_bytes(*job.gpu) : 0;
}

bool inference_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, bool explain) {
    const Job& job = p.job;
    check_ep(p, l);
    s.device = device_bytes(job);
    s.window_policy = window_policy_text(p);
    auto why = [&](int term) { return explain ? &b.why[term] : nullptr; };
    if (explain) {
        b.why[kGradients] = "none: inference computes no gradients";
        b.why[kOptimizer] = "none: inference keeps no optimizer state";
        b.why[kLogits] = "counted in the working set";
        b.why[kBuffers] = "none";
    }
    // Issue 36: the speculative proposer and the LoRA slots (core/serving/extras.hpp).
    const SpecCost spec = speculative_cost(p, l, explain);
    const LoraSlots lora = lora_slots(p, l, explain);
    s.spec_weights = spec.weights, s.spec_params = spec.params, s.spec_kv_per_token = spec.kv_per_token, s.spec_why = spec.why;
    s.lora_slots = lora.gpu, s.lora_cpu = lora.cpu, s.lora_why = lora.why;
    if (job.engine == Engine::Mlx) {
        mlx_terms(p, l, b, s, explain);
        s.engine = true;
        fit_on_device(s, b.total());
        return true;
    }
    if (llama_cpp_like(job)) {
        llama_cpp_terms(p, l, b, s, explain);
        // llama.cpp keeps the draft (-md) and the --lora adapters beside the model: their weights, and
        // the draft's KV for its own context (-cd, else the target's) on the GPU.
        const double draft_ctx = static_cast<double>(job.spec.ctx_size_draft > 0 ? job.spec.ctx_size_draft : job.seq);
        s.spec_kv = spec.kv_per_token * draft_ctx;
        b.bytes[kWeights] += spec.weights + lora.gpu;
        b.bytes[kKvCache] += s.spec_kv;
        s.cpu_bytes += lora.cpu;
        if (explain && spec.weights > 0) b.why[kWeights] += "; + " + spec.why;
        if (explain && s.spec_kv > 0) b.why[kKvCache] += "; + the draft's KV for " + count_text(static_cast<int64_t>(draft_ctx)) + " tokens " + gb_text(s.spec_kv);
        if (explain && lora.gpu > 0) b.why[kWeights] += "; + " + lora.why;
        s.engine = true;
        fit_on_device(s, b.total(), job.fit ? job.fit_target_mib * kMiB : 0);
        return true;
    }
    b.bytes[kWeights] = weights_on_gpu(p, l, why(kWeights));
    KvCost k = kv_cost(p, l, 1.0 / static_cast<double>(l.pp));
    // vLLM and SGLang take the proposer's and the slots' weights from the budget before the pool, and page
    // the proposer's layers in the same pool: every token costs their KV too.
    b.bytes[kWeights] += spec.weights + lora.gpu;
    k.full_token += spec.kv_per_token;
    s.cpu_bytes += lora.cpu;
    if (explain && spec.weights > 0) b.why[kWeights] += "; + " + spec.why;
    if (explain && lora.gpu > 0) b.why[kWeights] += "; + " + lora.why;
    s.kv_per_token = k.every_token();
    s.spec_kv = spec.kv_per_token * static_cast<double>(job.seq) * static_cast<double>(job.batch);
    switch (job.engine) {
        case Engine::Vllm: vllm_terms(p, l, b, s, k, explain); s.engine = true; return true;
        case Engine::Sglang: sglang_terms(p, l, b, s, k, explain); s.engine = true; return true;
        case Engine::HfGenerate: hf_terms(p, l, b, s, k, explain); return false;
        default: break;
    }
    // Custom: one prefill chunk (layers one at a time) + last-token fp32 logits, and the KV for
    // batch × seq. Servers prefill in chunks, not every prompt at once: at most kPrefillChunk tokens
    // per forward pass, whole sequences while they fit, else a slice of one sequence's queries over
    // its keys.
    const ModelConfig& c = p.m.config;
    const double bs = static_cast<double>(job.batch), sq = static_cast<double>(job.seq);
    const double chunk = std::min(bs * sq, kPrefillChunk);
    const double rows = chunk >= sq ? std::floor(chunk / sq) : 1, queries = chunk >= sq ? sq : chunk;
    // Two hidden-size streams (residual + normed input) as the seed example counts them.
    const double work = layer_working_set(p, chunk, l.tp, 2), scores = eager_scores(p, rows, queries, sq, l.tp, p.compute.bits / 8 + 4);
    const double V = static_cast<double>(need_dim(c.vocab, "vocab_size", "the logits"));
    const double logits = 4 * bs * V / static_cast<double>(l.tp);
    b.bytes[kActivations] = work + scores + logits;
    b.bytes[kKvCache] = kv_for_batch(p, k, job.seq, job.batch);
    s.kv_needed = b.bytes[kKvCache];
    if (explain) {
        b.why[kActivations] = "one layer live during prefill" +
                              (chunk < bs * sq ? " of one chunk of " + count_text(static_cast<int64_t>(chunk)) +
                                                     " tokens (servers prefill in chunks, not every prompt at once)"
                                               : std::string()) +
                              ": t·(2h + 3·I" + std::string(l.tp > 1 ? "/TP" : "") + ") = " +
                              gb_text(work) + (scores > 0 ? " + attention scores b·a·s² " + gb_text(scores) : " (no s² scores)") +
                              " + last-token fp32 logits " + gb_text(logits) + " = " + gb_text(b.bytes[kActivations]);
        b.why[kKvCache] = kv_why(p, k, b.bytes[kKvCache]);
    }
    return false;
}

}  // namespace vramcalc
