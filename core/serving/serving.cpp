#include "serving/serving.hpp"

#include <algorithm>
#include <cmath>

#include "text/errors.hpp"
#include "serving/gguf.hpp"
#include "hardware/gpus.hpp"
#include "memory/kv.hpp"
#include "memory/states.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
std::string count(int64_t n) { return std::to_string(n); }
std::string gib(double bytes) { return printf_text("%.2f GiB", bytes / kGiB); }

int64_t need(int64_t value, const char* field, const char* use) { return require_dimension(value, field, use); }

// One layer's live temporaries for `tokens` tokens in a forward pass (the
// layers run one at a time): residual, normed input and the MLP output (3h),
// the gated MLP's gate‖up and product (3·I/TP), or for MoE the fused-MoE
// caches per routed copy (gate‖up, product, output: top-k × (3·I_moe/TP + h))
// (vllm model_executor/layers/fused_moe/fused_moe.py intermediate_cache1..3).
double layer_working_set(const Plan& p, double tokens, int64_t tp, double streams = 3) {
    const ModelConfig& c = p.m.config;
    const double h = static_cast<double>(need(c.hidden, "hidden_size", "the inference working set"));
    const double t = static_cast<double>(tp), bytes = p.compute.bits / 8;
    double mlp = 3 * static_cast<double>(c.intermediate > 0 ? c.intermediate : 4 * c.hidden) / t;
    if (c.is_moe()) {
        const double routed = static_cast<double>(c.experts_per_token) * (3 * static_cast<double>(c.moe_intermediate) / t + h);
        const double shared = 3 * static_cast<double>(c.moe_intermediate * c.shared_experts + c.shared_expert_intermediate) / t;
        mlp = std::max(routed + shared, c.dense_layers > 0 ? mlp : 0.0);
    }
    return tokens * (streams * h + mlp) * bytes;
}

// Eager attention writes the scores out: b × heads/TP × s_q × s_kv, in the
// compute dtype and again as fp32 softmax (transformers eager_attention_forward:
// softmax(..., dtype=torch.float32).to(query.dtype)).
double eager_scores(const Plan& p, double b, double s_q, double s_kv, int64_t tp) {
    if (p.job.attention != Attention::Eager && p.job.attention != Attention::Unfused) return 0;
    const double a = static_cast<double>(need(p.m.config.heads, "num_attention_heads", "attention scores"));
    return b * a / static_cast<double>(tp) * s_q * s_kv * (p.compute.bits / 8 + 4);
}

// vLLM's profile-run sampler (v0 model_executor/layers/sampler.py with the
// dummy SamplingParams top_p 0.99, top_k vocab − 1): for max_num_seqs rows of
// the vocabulary, the bf16 logits (2 B), their fp32 copy (4), and inside
// _apply_top_k_top_p the sort's outputs (values 4, int64 indices 8) with
// torch.sort's own temporaries for rows over 4096 (aten/src/ATen/native/cuda/
// SortStable.cu segmented sort by full sort: an int64 iota plus cub's key and
// value double buffers, 8 + 12) = 38 bytes per logit, the moment the sampler
// peaks. Our reading; calibrated by ACT-VLLM-01 (tests/validation/serving.json).
constexpr double kSamplerBytesPerLogit = 38;

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
        *why = "routed experts " + gb_text(experts) + " ÷ EP " + count(p.job.ep) + " + the rest " + gb_text(rest) +
               (p.job.dp_attention ? " replicated (data-parallel attention)" : " ÷ TP " + count(l.tp)) +
               (l.pp > 1 ? ", ÷ PP " + count(l.pp) : "") + " = " + gb_text(w) + " per GPU" +
               (c.is_moe() ? "" : " (no experts: EP changes nothing)");
    return w;
}

void check_ep(const Plan& p, const Layout& l) {
    const Job& job = p.job;
    if (job.ep > 1 && !p.m.config.is_moe())
        throw InputError("job.ep", "expert parallelism needs a mixture-of-experts model");
    if (job.ep > 1 && job.gpus % job.ep != 0)
        throw InputError("job.ep", "must divide gpus (" + count(job.gpus) + "), got " + count(job.ep));
    if (job.ep > 1 && p.m.config.experts % job.ep != 0)
        throw InputError("job.ep", "must divide the number of experts (" + count(p.m.config.experts) + "), got " + count(job.ep));
    if (job.dp_attention && job.ep <= 1)
        throw InputError("job.dp_attention", "data-parallel attention shards the experts: set ep > 1 as well");
    (void)l;
}

// The KV for batch × seq per GPU. With data-parallel attention each GPU holds
// its own share of the sequences.
double kv_for_batch(const Plan& p, const KvCost& k, int64_t seq, int64_t batch) {
    const int64_t share = p.job.dp_attention ? (batch + p.job.ep - 1) / p.job.ep : batch;
    return kv_bytes(p, k, seq, share);
}

std::string kv_why(const Plan& p, const KvCost& k, double bytes) {
    const Job& job = p.job;
    std::string why = "batch " + count(job.batch) + " × " + count(job.seq) + " tokens × " +
                      printf_text("%.1f", k.every_token() / 1024) + " KiB per token per GPU (" + p.kv->label + ")";
    if (k.state_seq > 0) why += " + " + gb_text(k.state_seq) + " of constant state per sequence (linear/SSM layers, or cross-attention keys and values of the image or the encoder's tokens)";
    const std::string w = window_policy_text(p);
    if (!w.empty()) why += "; " + w;
    if (job.dp_attention) why += "; data-parallel attention: each GPU holds 1/" + count(job.ep) + " of the sequences";
    return why + " = " + gb_text(bytes);
}

void fit_on_device(ServingInfo& s, double total) {
    if (s.device <= 0) return;
    s.fits = total <= s.device;
    s.verdict = std::string(s.fits ? "fits" : "does not fit") + ": " + gib(total) + " of " + gib(s.device) + " per GPU";
}

// transformers generate: prefill of the prompt (seq − new_tokens), then one
// token at a time while DynamicCache grows with torch.cat (cache_utils.py
// DynamicLayer.update: the new layer tensor is built while the old one lives).
// Logits: only the last position (generate passes logits_to_keep=1) in the
// compute dtype and its fp32 copy (generation/utils.py _sample).
void hf_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, const KvCost& k, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const int64_t prompt = std::max<int64_t>(1, job.seq - job.new_tokens);
    const double bsz = static_cast<double>(job.batch);
    const double V = static_cast<double>(need(c.vocab, "vocab_size", "the logits"));
    const double logits = bsz * V * (p.compute.bits / 8 + 4) / static_cast<double>(l.tp);
    const double prefill = layer_working_set(p, bsz * static_cast<double>(prompt), l.tp) +
                           eager_scores(p, bsz, static_cast<double>(prompt), static_cast<double>(prompt), l.tp) + logits;
    const double kv_prompt = kv_for_batch(p, k, prompt, job.batch), kv_end = kv_for_batch(p, k, job.seq, job.batch);
    const double one_layer_copy = c.layers > 0 ? kv_end / static_cast<double>(c.layers) * static_cast<double>(l.pp) : 0;
    const double decode = layer_working_set(p, bsz, l.tp) + eager_scores(p, bsz, 1, static_cast<double>(job.seq), l.tp) + logits;
    const double at_prefill = kv_prompt + prefill, at_end = kv_end + one_layer_copy + decode;
    b.bytes[kKvCache] = kv_end;
    b.bytes[kActivations] = std::max(at_prefill, at_end) - kv_end;
    s.kv_needed = kv_end;
    if (explain) {
        b.why[kKvCache] = kv_why(p, k, kv_end) + (job.new_tokens > 0 ? " after generating " + count(job.new_tokens) + " tokens" : "");
        b.why[kActivations] = std::string("peak ") + (at_prefill >= at_end ? "at prefill" : "at the last generated token") +
                              ": prefill of " + count(prompt) + " tokens needs " + gb_text(prefill) + " (" +
                              attention_name(job.attention) + " attention, last-token logits " + gb_text(logits) +
                              ") over a " + gb_text(kv_prompt) + " cache; the last token needs the full cache + one layer copied by torch.cat (" +
                              gb_text(one_layer_copy) + ") + " + gb_text(decode);
    }
}

void vllm_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, const KvCost& k, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    if (s.device <= 0) throw InputError("job.gpu", "vLLM sizes its KV pool from the device memory: choose a GPU or give device_gib");
    s.max_model_len = job.max_model_len > 0 ? job.max_model_len : job.seq;
    // vllm/engine/arg_utils.py: with chunked prefill 8192 batched tokens for vllm serve; without, V0's
    // SchedulerConfig uses max(max_model_len, 2048) so one whole prompt fits a step.
    s.profile_tokens = job.max_num_batched_tokens > 0 ? job.max_num_batched_tokens
                       : job.chunked_prefill ? 8192 : std::max<int64_t>(s.max_model_len, 2048);
    const double T = static_cast<double>(s.profile_tokens);
    const double rows = static_cast<double>(std::min<int64_t>(job.max_num_seqs, s.profile_tokens));
    const double V = static_cast<double>(need(c.vocab, "vocab_size", "the profile run's sampler"));
    const double layer = layer_working_set(p, T, l.tp);
    const double sampler = rows * V * kSamplerBytesPerLogit + T * static_cast<double>(c.hidden) * p.compute.bits / 8;
    const double act = std::max(layer, sampler);
    const double non_torch = job.overhead_gb * kBytesPerGB + (l.tp > 1 ? job.comm_buffers_gb * kBytesPerGB : 0);
    s.budget = job.gpu_memory_utilization * s.device;
    const double W = b.bytes[kWeights];
    s.kv_pool = s.budget - W - act - non_torch;
    const double block = static_cast<double>(job.block_size) * k.every_token();
    s.pool_blocks = s.kv_pool > 0 && block > 0 ? static_cast<int64_t>(std::floor(s.kv_pool / block)) : 0;
    s.pool_tokens = s.pool_blocks * job.block_size;
    s.kv_per_request = kv_bytes(p, k, s.max_model_len, 1);
    s.kv_needed = kv_for_batch(p, k, job.seq, job.batch);
    b.bytes[kActivations] = act;
    b.bytes[kOverhead] = non_torch;
    b.bytes[kKvCache] = std::max(0.0, s.kv_pool);
    // vLLM refuses to start when one max_model_len request does not fit the pool (vllm/v1/core/kv_cache_utils.py
    // check_enough_kv_cache_memory); the job's batch × seq must fit it to run concurrently.
    // The pool is handed out in whole blocks.
    const double usable = block > 0 ? static_cast<double>(s.pool_blocks) * block : std::max(0.0, s.kv_pool);
    s.fits = s.kv_pool > 0 && usable >= s.kv_per_request && usable >= s.kv_needed;
    // vLLM's "Maximum concurrency": the pool in whole blocks over one max_model_len request's KV
    // (vllm/v1/core/kv_cache_utils.py get_max_concurrency_for_kv_cache_config: num_blocks over the
    // blocks one request needs, windows and state included); for full attention, pool tokens over
    // max_model_len. At least 1 exactly when one request fits, as the verdict says.
    s.max_concurrency = s.kv_per_request > 0 ? usable / s.kv_per_request : 0;
    s.verdict = std::string(s.fits ? "fits" : "does not fit") + ": KV pool " + gib(std::max(0.0, s.kv_pool)) + " = " +
                count(s.pool_blocks) + " blocks × " + count(job.block_size) + " = " + count(s.pool_tokens) +
                " tokens; maximum concurrency for " + count(s.max_model_len) + " tokens per request: " +
                concurrency_text(s.max_concurrency) + "; batch " + count(job.batch) + " × " + count(job.seq) + " needs " +
                gib(s.kv_needed);
    if (explain) {
        b.why[kActivations] = "profile run of " + count(s.profile_tokens) + " tokens: peak of one layer's temporaries " +
                              gib(layer) + " and the sampler over " + printf_text("%.0f", rows) + " rows × " + count(c.vocab) +
                              " vocab × 38 bytes + the final hidden states = " + gib(sampler) + " (vllm worker determine_available_memory)";
        b.why[kOverhead] = "non-torch memory " + gib(non_torch) + " (CUDA context, cuBLAS" +
                           (l.tp > 1 ? ", NCCL / custom all-reduce buffers" : "") + ")";
        b.why[kKvCache] = "the rest of " + printf_text("%.2f", job.gpu_memory_utilization) + " × " + gib(s.device) + " = " +
                          gib(s.budget) + " after weights, activations and non-torch memory: " + s.verdict;
    }
}

double sglang_fraction(const Job& job, const Layout& l) {
    if (job.mem_fraction_static > 0) return job.mem_fraction_static;
    return l.tp >= 16 ? 0.79 : l.tp >= 8 ? 0.81 : l.tp >= 4 ? 0.85 : l.tp >= 2 ? 0.87 : 0.88;
}

void sglang_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, const KvCost& k, bool explain) {
    const Job& job = p.job;
    if (s.device <= 0) throw InputError("job.gpu", "SGLang sizes its KV pool from the device memory: choose a GPU or give device_gib");
    const double frac = sglang_fraction(job, l);
    const double context = job.overhead_gb * kBytesPerGB + (l.tp > 1 ? job.comm_buffers_gb * kBytesPerGB : 0);
    s.budget = frac * s.device;
    // sglang model_runner.py profile_max_num_token: rest = free after loading − total × (1 − fraction).
    s.kv_pool = s.budget - b.bytes[kWeights] - context;
    s.profile_tokens = job.max_num_batched_tokens > 0 ? job.max_num_batched_tokens : 8192;
    const double act = layer_working_set(p, static_cast<double>(s.profile_tokens), l.tp);
    s.max_model_len = job.max_model_len > 0 ? job.max_model_len : job.seq;
    s.pool_tokens = k.every_token() > 0 && s.kv_pool > 0 ? static_cast<int64_t>(s.kv_pool / k.every_token()) : 0;
    s.kv_per_request = kv_bytes(p, k, s.max_model_len, 1);
    s.max_concurrency = s.kv_pool > 0 && s.kv_per_request > 0 ? s.kv_pool / s.kv_per_request : 0;
    s.kv_needed = kv_for_batch(p, k, job.seq, job.batch);
    b.bytes[kKvCache] = std::max(0.0, s.kv_pool);
    b.bytes[kActivations] = act;
    b.bytes[kOverhead] = context;
    const double headroom = (1 - frac) * s.device;
    s.fits = s.kv_pool >= s.kv_needed && s.kv_pool > 0 && act <= headroom;
    s.verdict = std::string(s.fits ? "fits" : "does not fit") + ": KV pool " + gib(std::max(0.0, s.kv_pool)) + " = " +
                count(s.pool_tokens) + " tokens (mem_fraction_static " + printf_text("%.2f", frac) + "); prefill chunk of " +
                count(s.profile_tokens) + " tokens needs " + gib(act) + " of the " + gib(headroom) + " left outside it";
    if (explain) {
        b.why[kKvCache] = s.verdict;
        b.why[kActivations] = "chunked prefill of " + count(s.profile_tokens) + " tokens, outside the static fraction";
        b.why[kOverhead] = "CUDA context and communication buffers " + gib(context);
    }
}

// llama.cpp: weights by GGUF per-tensor types; -ngl puts the last n layers
// on the GPU (llama-model.cpp load_tensors: i_gpu_start = n_layer − n_gpu_layers;
// output on the GPU when n_gpu_layers > n_layer); token_embd stays in host
// memory; each layer's KV lives with it. Compute buffer (ggml-alloc reserve of
// the worst-case ubatch graph, f32): the larger of the output (n_ubatch × vocab
// logits + the normed input) and one layer (3 hidden-size streams + attention
// scores and softmax n_head × n_ubatch × n_ctx without flash attention, or the
// MLP's gate, up and product).
void llama_cpp_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const GgufWeights g = gguf_weights(p);
    const int64_t L = c.layers;
    const int64_t ngl = job.n_gpu_layers < 0 ? L + 1 : std::min<int64_t>(job.n_gpu_layers, L + 1);
    s.layers = L;
    s.gpu_layers = std::min<int64_t>(ngl, L);
    double gpu = 0, cpu = g.token_embd, experts_cpu = 0;
    for (int64_t i = 0; i < L; ++i) {
        const bool on_gpu = i >= L - s.gpu_layers;
        const double e = job.experts_on_cpu ? g.experts[i] : 0;
        (on_gpu ? gpu : cpu) += g.layer[i] - e;
        cpu += e;
        experts_cpu += on_gpu ? e : 0;
    }
    const bool output_on_gpu = ngl > L;
    (output_on_gpu ? gpu : cpu) += g.output;
    const KvCost k_gpu = kv_cost(p, l, static_cast<double>(s.gpu_layers) / static_cast<double>(L));
    const KvCost k_cpu = kv_cost(p, l, static_cast<double>(L - s.gpu_layers) / static_cast<double>(L));
    const double kv_gpu = kv_bytes(p, k_gpu, job.seq, job.batch), kv_cpu = kv_bytes(p, k_cpu, job.seq, job.batch);
    const double ub = static_cast<double>(std::min<int64_t>(job.n_ubatch, job.seq * job.batch));
    const double h = static_cast<double>(c.hidden), n_ctx = static_cast<double>((job.seq * job.batch + 255) / 256 * 256);
    const double out = ub * static_cast<double>(c.vocab) * 4 + ub * h * 4;
    const double attn = job.attention == Attention::Eager ? 2 * static_cast<double>(c.heads) * ub * n_ctx * 4 : 0;
    double I = static_cast<double>(c.intermediate);
    if (c.is_moe()) I = static_cast<double>(c.experts_per_token * c.moe_intermediate);
    const double layer = 3 * ub * h * 4 + std::max(attn, 3 * ub * I * 4);
    s.compute_buffer = s.gpu_layers > 0 || output_on_gpu ? std::max(output_on_gpu ? out : 0.0, layer) : 0;
    s.cpu_bytes = cpu + kv_cpu + (output_on_gpu ? 0 : out);
    s.weights_mix = g.mix;
    s.kv_needed = kv_gpu + kv_cpu;
    b.bytes[kWeights] = gpu;
    b.bytes[kKvCache] = kv_gpu;
    b.bytes[kBuffers] = s.compute_buffer;
    b.bytes[kActivations] = 0;
    b.bytes[kOverhead] = job.overhead_gb * kBytesPerGB;
    if (explain) {
        b.why[kWeights] = (p.exact ? "as stored in the " + p.m.exact.source : std::string(p.weights.label)) + " per tensor (" + g.mix + ", " +
                          printf_text("%.2f", g.total() * 8 / p.m.params.total) + " bits/weight, " + gib(g.total()) +
                          "): " + count(s.gpu_layers) + "/" + count(L) + " layers" + (output_on_gpu ? " + output" : "") +
                          " on the GPU = " + printf_text("%.2f MiB", gpu / 1048576) + "; token_embd " +
                          printf_text("%.2f MiB", g.token_embd / 1048576) + " in host memory" +
                          (job.experts_on_cpu ? "; routed experts in host memory (-ot exps=CPU)" : "");
        b.why[kKvCache] = kv_why(p, k_gpu, kv_gpu) + " on the GPU" + (kv_cpu > 0 ? "; " + gib(kv_cpu) + " with the CPU layers" : "");
        b.why[kBuffers] = "ggml compute buffer for n_ubatch " + count(job.n_ubatch) + ": max(output logits " +
                          printf_text("%.1f MiB", out / 1048576) + ", one layer " + printf_text("%.1f MiB", layer / 1048576) +
                          (job.attention == Attention::Eager ? " incl. attention scores" : " (flash attention)") + ")";
        b.why[kActivations] = "none beyond the compute buffer";
        b.why[kOverhead] = "CUDA context " + gb_text(b.bytes[kOverhead]);
    }
}

}  // namespace

double device_bytes(const Job& job) {
    if (job.device_gib > 0) return job.device_gib * kGiB;
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
    if (llama_cpp_like(job)) {
        llama_cpp_terms(p, l, b, s, explain);
        s.engine = true;
        fit_on_device(s, b.total());
        return true;
    }
    b.bytes[kWeights] = weights_on_gpu(p, l, why(kWeights));
    const KvCost k = kv_cost(p, l, 1.0 / static_cast<double>(l.pp));
    s.kv_per_token = k.every_token();
    switch (job.engine) {
        case Engine::Vllm: vllm_terms(p, l, b, s, k, explain); s.engine = true; return true;
        case Engine::Sglang: sglang_terms(p, l, b, s, k, explain); s.engine = true; return true;
        case Engine::HfGenerate: hf_terms(p, l, b, s, k, explain); return false;
        default: break;
    }
    // Custom: one prefill of batch × seq (layers one at a time) + last-token fp32 logits, and the KV for it.
    const ModelConfig& c = p.m.config;
    const double bs = static_cast<double>(job.batch), sq = static_cast<double>(job.seq);
    // Two hidden-size streams (residual + normed input) as the seed example counts them.
    const double work = layer_working_set(p, bs * sq, l.tp, 2), scores = eager_scores(p, bs, sq, sq, l.tp);
    const double V = static_cast<double>(need(c.vocab, "vocab_size", "the logits"));
    const double logits = 4 * bs * V / static_cast<double>(l.tp);
    b.bytes[kActivations] = work + scores + logits;
    b.bytes[kKvCache] = kv_for_batch(p, k, job.seq, job.batch);
    s.kv_needed = b.bytes[kKvCache];
    if (explain) {
        b.why[kActivations] = "one layer live during prefill: b·s·(2h + 3·I" + std::string(l.tp > 1 ? "/TP" : "") + ") = " +
                              gb_text(work) + (scores > 0 ? " + attention scores b·a·s² " + gb_text(scores) : " (no s² scores)") +
                              " + last-token fp32 logits " + gb_text(logits);
        b.why[kKvCache] = kv_why(p, k, b.bytes[kKvCache]);
    }
    return false;
}

}  // namespace vramcalc
