// transformers generate: the peak of prefill or of the last generated token,
// with the KV cache kept as cache_implementation keeps it (cache_utils.py).
#include <algorithm>

#include "serving/engines.hpp"
#include "serving/working_set.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// What the cache holds on the GPU, and what it holds elsewhere, after `tokens` tokens.
struct CacheBytes {
    double gpu = 0, cpu = 0;
    double transient = 0;  // what an update adds on top while one layer is computed
    std::string how;
};

// cache_utils.py, by cache_implementation:
// - dynamic (DynamicLayer.update): torch.cat builds the grown layer while the old one lives,
//   one layer's copy at the end.
// - static (StaticLayer.lazy_initialization): zeros of [batch, kv_heads, max_cache_len, head_dim]
//   per layer from the first update, max_cache_len = prompt + max_new_tokens; updated in place.
// - offloaded / offloaded_static (OffloadedCache, OffloadedStaticCache): every layer in CPU
//   memory, the layer computed and the next one prefetched (prefetch(layer_idx + 1)) on the GPU.
// - quantized (QuantizedLayer, KIVI-style, quanto / HQQ): tokens past the newest
//   residual_length stored in nbits with an fp16 scale and zero per q_group_size values; an
//   update dequantizes the layer and concatenates the new tokens (two full-precision copies).
CacheBytes cache_bytes(const Plan& p, const KvCost& k, int64_t tokens, int64_t pp) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const double full = kv_for_batch(p, k, tokens, job.batch);
    const double layers = static_cast<double>(std::max<int64_t>(1, c.layers)) / static_cast<double>(pp);
    const double one_layer = full / layers;
    CacheBytes r;
    switch (job.cache_implementation) {
        case CacheImpl::Dynamic:
            r.gpu = full;
            r.transient = one_layer;
            r.how = "DynamicCache: one layer copied by torch.cat";
            break;
        case CacheImpl::Static:
            r.gpu = full;
            r.how = "StaticCache allocated for " + count_text(job.seq) + " tokens, updated in place";
            break;
        case CacheImpl::Offloaded:
        case CacheImpl::OffloadedStatic:
            r.gpu = 2 * one_layer;
            r.cpu = full;
            r.transient = job.cache_implementation == CacheImpl::Offloaded ? one_layer : 0;
            r.how = std::string(job.cache_implementation == CacheImpl::Offloaded ? "OffloadedCache" : "OffloadedStaticCache") +
                    ": every layer in CPU memory (" + gb_text(full) + "), two on the GPU";
            break;
        case CacheImpl::Quantized: {
            const double residual = static_cast<double>(std::min(tokens, job.cache_residual_length));
            const double t = static_cast<double>(tokens), quantized = std::max(0.0, t - residual);
            const double element = p.kv->bits / 8;  // bytes per value at the cache's own precision
            const double q = static_cast<double>(job.cache_nbits) / 8 + 4.0 / static_cast<double>(job.cache_q_group_size);
            r.gpu = t > 0 ? full * (quantized * q / element + residual) / t : 0;
            r.transient = 2 * one_layer;
            r.how = "QuantizedCache: " + count_text(static_cast<int64_t>(quantized)) + " tokens in " + count_text(job.cache_nbits) +
                    " bits (+ scale and zero per " + count_text(job.cache_q_group_size) + "), the newest " +
                    count_text(static_cast<int64_t>(residual)) + " in full precision; an update dequantizes one layer";
            break;
        }
    }
    return r;
}

}  // namespace

// transformers generate: prefill of the prompt (seq − new_tokens), then one token at a time.
// Logits: only the last position (generate passes logits_to_keep=1) in the compute dtype and
// its fp32 copy (generation/utils.py _sample). Eager attention writes the scores in the compute
// dtype and again as the fp32 softmax (eager_attention_forward: softmax(..., dtype=float32)).
void hf_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, const KvCost& k, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const int64_t prompt = std::max<int64_t>(1, job.seq - job.new_tokens);
    const double bsz = static_cast<double>(job.batch), score_bytes = p.compute.bits / 8 + 4;
    const double V = static_cast<double>(need_dim(c.vocab, "vocab_size", "the logits"));
    const double logits = bsz * V * (p.compute.bits / 8 + 4) / static_cast<double>(l.tp);
    const double prefill = layer_working_set(p, bsz * static_cast<double>(prompt), l.tp) +
                           eager_scores(p, bsz, static_cast<double>(prompt), static_cast<double>(prompt), l.tp, score_bytes) + logits;
    const bool fixed = job.cache_implementation == CacheImpl::Static || job.cache_implementation == CacheImpl::OffloadedStatic;
    const CacheBytes at_prompt = cache_bytes(p, k, fixed ? job.seq : prompt, l.pp), at_last = cache_bytes(p, k, job.seq, l.pp);
    const double decode = layer_working_set(p, bsz, l.tp) + eager_scores(p, bsz, 1, static_cast<double>(job.seq), l.tp, score_bytes) + logits;
    const double peak_prefill = at_prompt.gpu + prefill, peak_end = at_last.gpu + at_last.transient + decode;
    b.bytes[kKvCache] = at_last.gpu;
    b.bytes[kActivations] = std::max(peak_prefill, peak_end) - at_last.gpu;
    s.kv_needed = kv_for_batch(p, k, job.seq, job.batch);
    s.cpu_bytes = at_last.cpu;
    if (explain) {
        b.why[kKvCache] = kv_why(p, k, s.kv_needed) + (job.new_tokens > 0 ? " after generating " + count_text(job.new_tokens) + " tokens" : "") +
                          "; " + at_last.how + ": " + gb_text(at_last.gpu) + " on the GPU";
        b.why[kActivations] = std::string("peak ") + (peak_prefill >= peak_end ? "at prefill" : "at the last generated token") +
                              ": prefill of " + count_text(prompt) + " tokens needs " + gb_text(prefill) + " (" +
                              attention_name(job.attention) + " attention, last-token logits " + gb_text(logits) + ") over a " +
                              gb_text(at_prompt.gpu) + " cache; the last token needs the cache + " + gb_text(at_last.transient) +
                              " while a layer is updated + " + gb_text(decode);
    }
}

}  // namespace vramcalc
