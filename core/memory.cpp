#include "memory.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "errors.hpp"
#include "gpus.hpp"
#include "json_text.hpp"
#include "units.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

std::string count(int64_t n) { return std::to_string(n); }

// ---------------------------------------------------------------- job parsing

template <class Enum>
struct Choice {
    const char* name;
    Enum value;
};

const Choice<Mode> kModes[] = {{"inference", Mode::Inference}, {"train", Mode::Train},
                               {"lora", Mode::LoRA}, {"qlora", Mode::QLoRA}};
const Choice<Optimizer> kOptimizers[] = {{"adamw", Optimizer::AdamW},        {"adam", Optimizer::AdamW},
                                         {"sgd", Optimizer::SGD},            {"sgd_momentum", Optimizer::SGDMomentum},
                                         {"adam_8bit", Optimizer::Adam8bit}, {"adafactor", Optimizer::Adafactor}};
const Choice<Checkpointing> kCheckpointing[] = {{"none", Checkpointing::None},
                                                {"selective", Checkpointing::Selective},
                                                {"full", Checkpointing::Full}};

template <class Enum, size_t N>
const char* name_of(const Choice<Enum> (&choices)[N], Enum value) {
    for (const auto& c : choices)
        if (c.value == value) return c.name;
    return "?";
}

template <class Enum, size_t N>
std::vector<const char*> names_of(const Choice<Enum> (&choices)[N]) {
    std::vector<const char*> names;
    for (const auto& c : choices) names.push_back(c.name);
    return names;
}

template <class Enum, size_t N>
Enum read_choice(const json& v, const std::string& field, const Choice<Enum> (&choices)[N]) {
    std::string names;
    for (const auto& c : choices) {
        if (v.is_string() && v.get<std::string>() == c.name) return c.value;
        names += (names.empty() ? "" : ", ") + std::string(c.name);
    }
    throw InputError(field, "must be one of " + names + ", got " + v.dump());
}

// ---------------------------------------------------------------- formats

// The dtype of matmuls, activations and gradients.
const NumberFormat& compute_format(const Job& job) {
    const NumberFormat& f = find_format(job.dtype, "job.dtype");
    return f.trainable ? f : find_format("bf16", "job.dtype");
}

// How the (frozen or trained) base weights are stored.
const NumberFormat& weight_format(const Job& job) {
    const NumberFormat& f = find_format(job.dtype, "job.dtype");
    if (job.mode == Mode::Train && !f.trainable)
        throw InputError("job.dtype", "full training needs fp32, fp16 or bf16 weights, got '" + job.dtype +
                                          "' (fine-tune a quantized base with mode qlora)");
    if (job.mode == Mode::QLoRA && f.trainable) return find_format("nf4", "job.dtype");
    return f;
}

bool trains(const Job& job) { return job.mode != Mode::Inference; }
bool uses_adapters(const Job& job) { return job.mode == Mode::LoRA || job.mode == Mode::QLoRA; }

// Dimensions a config given only as num_parameters may lack.
int64_t hidden_of(const ModelConfig& c, const char* use) { return require_dimension(c.hidden, "hidden_size", use); }
int64_t layers_of(const ModelConfig& c, const char* use) { return require_dimension(c.layers, "num_hidden_layers", use); }
int64_t heads_of(const ModelConfig& c, const char* use) { return require_dimension(c.heads, "num_attention_heads", use); }
int64_t vocab_of(const ModelConfig& c, const char* use) { return require_dimension(c.vocab, "vocab_size", use); }

// ---------------------------------------------------------------- LoRA

// Which linear layers get adapters: "all-linear" (QLoRA paper setting),
// "attention", "mlp", or a comma-separated list of module names.
std::vector<const Tensor*> lora_targets(const Model& model, const Job& job) {
    if (model.config.family == Family::Explicit)
        throw InputError("config", "LoRA needs the architecture (model_type and dimensions) to know which "
                                   "matrices get adapters; num_parameters alone is not enough");
    std::vector<const Tensor*> picked;
    const std::string& spec = job.lora_targets;
    if (spec == "all-linear" || spec == "attention" || spec == "mlp") {
        for (const auto& t : model.tensors) {
            bool take = spec == "all-linear" ? t.is_linear()
                        : spec == "attention" ? t.kind == TensorKind::Attention
                                              : t.is_linear() && t.kind != TensorKind::Attention;
            if (take) picked.push_back(&t);
        }
        return picked;
    }
    size_t start = 0;
    while (start <= spec.size()) {
        size_t end = spec.find(',', start);
        if (end == std::string::npos) end = spec.size();
        std::string name = spec.substr(start, end - start);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        bool found = false;
        for (const auto& t : model.tensors)
            if (t.is_linear() && name == t.module) {
                picked.push_back(&t);
                found = true;
            }
        if (!found) {
            std::set<std::string> available;
            for (const auto& t : model.tensors)
                if (t.is_linear()) available.insert(t.module);
            std::string list;
            for (const auto& a : available) list += (list.empty() ? "" : ", ") + a;
            throw InputError("job.lora_targets", "no linear module named '" + name + "' in this model; use all-linear, "
                                                 "attention, mlp or some of: " + list);
        }
        start = end + 1;
    }
    return picked;
}

// LoRA (Hu et al. 2021): W + B·A with A: r × in, B: out × r -> r·(in + out) per matrix.
double lora_params(const Model& model, const Job& job) {
    double p = 0;
    for (const Tensor* t : lora_targets(model, job))
        p += static_cast<double>(job.lora_rank) * static_cast<double>(t->in + t->out) * static_cast<double>(t->copies);
    return p;
}

// Adafactor (Shazeer & Stern 2018) keeps a factored second moment: a row
// and a column vector per matrix, a full vector for 1-D tensors; no first
// moment (beta1 = None, the Hugging Face default).
double adafactor_state_values(const Model& model, const Job& job) {
    if (model.config.family == Family::Explicit)
        throw InputError("config", "Adafactor's factored state depends on matrix shapes; give the architecture, "
                                   "not only num_parameters");
    double values = 0;
    if (uses_adapters(job)) {
        const double r = static_cast<double>(job.lora_rank);
        for (const Tensor* t : lora_targets(model, job))
            values += (static_cast<double>(t->in) + r + r + static_cast<double>(t->out)) * static_cast<double>(t->copies);
        return values;
    }
    for (const auto& t : model.tensors)
        values += static_cast<double>(t.in == 1 ? t.out : t.in + t.out) * static_cast<double>(t.copies);
    return values;
}

// ---------------------------------------------------------------- plan

// What a job needs that does not depend on how it is spread over GPUs:
// resolved once per estimate, then reused for every GPU layout tried.
struct Plan {
    const Model& m;
    const Job& job;
    const NumberFormat& compute;  // dtype of matmuls, activations and gradients
    const NumberFormat& weights;  // how the (frozen or trained) base weights are stored
    const NumberFormat* kv;       // KV cache format; null when training
    double trainable;             // parameters that get gradients and optimizer state
    double adapter_bytes;         // bytes per LoRA parameter (and its gradient)
    double adafactor_values;      // Adafactor's factored state size, when it is the optimizer
};

Plan make_plan(const Model& m, const Job& job) {
    const NumberFormat& compute = compute_format(job);
    const NumberFormat* kv = nullptr;
    if (!trains(job)) {
        kv = job.kv_dtype == "auto" ? &compute : &find_format(job.kv_dtype, "job.kv_dtype");
        if (!is_kv_format(*kv)) {
            std::string names;
            for (const char* n : kv_format_names()) names += (names.empty() ? "" : ", ") + std::string(n);
            throw InputError("job.kv_dtype", "must be one of " + names + ", got '" + job.kv_dtype + "'");
        }
    }
    return Plan{m, job, compute, weight_format(job), kv, trainable_params(m, job),
                find_format(job.adapter_dtype, "job.adapter_dtype").bits / 8,
                trains(job) && job.optimizer == Optimizer::Adafactor ? adafactor_state_values(m, job) : 0};
}

// ---------------------------------------------------------------- layout

Layout resolve_layout(const Model& model, const Job& job) {
    Layout l;
    l.gpus = job.gpus;
    l.pp = job.pp;
    l.tp = job.tp > 0 ? job.tp : (trains(job) ? 1 : std::max<int64_t>(1, job.gpus / job.pp));
    if (job.gpus % (l.tp * l.pp) != 0)
        throw InputError("job.gpus", "must be a multiple of tp × pp (" + count(l.tp) + " × " + count(l.pp) + "), got " +
                                         count(job.gpus));
    l.dp = job.gpus / (l.tp * l.pp);
    l.zero = trains(job) ? job.zero : 0;
    const ModelConfig& c = model.config;
    // Tensor parallelism splits attention heads evenly (Megatron, vLLM).
    if (c.heads > 0 && c.heads % l.tp != 0)
        throw InputError(job.tp > 0 ? "job.tp" : "job.gpus",
                         "tensor parallel degree " + count(l.tp) + " must divide num_attention_heads (" +
                             count(c.heads) + ")" + (job.tp > 0 ? "" : "; set tp and pp to split differently"));
    if (c.layers > 0 && l.pp > c.layers)
        throw InputError("job.pp", "cannot exceed the number of layers (" + count(c.layers) + "), got " + count(l.pp));
    return l;
}

// Sharding divisor for model states under tensor/pipeline parallelism and ZeRO.
// ZeRO paper (Rajbhandari et al. 2019, Fig. 1): stage 1 partitions optimizer
// states, stage 2 also gradients, stage 3 also weights, over the dp ranks.
double shard(const Layout& l, int zero_stage_needed) {
    double d = static_cast<double>(l.tp * l.pp);
    if (l.zero >= zero_stage_needed) d *= static_cast<double>(l.dp);
    return d;
}

std::string shard_text(const Layout& l, int zero_stage_needed, double per_gpu) {
    std::string parts;
    if (l.tp > 1) parts += "TP " + count(l.tp);
    if (l.pp > 1) parts += std::string(parts.empty() ? "" : " × ") + "PP " + count(l.pp);
    if (l.zero >= zero_stage_needed && l.dp > 1)
        parts += std::string(parts.empty() ? "" : " × ") + "ZeRO-" + count(l.zero) + " over " + count(l.dp);
    if (parts.empty()) return "";
    return ", ÷ " + plain_number(shard(l, zero_stage_needed)) + " (" + parts + ") = " + gb_text(per_gpu) + " per GPU";
}

// ---------------------------------------------------------------- terms

// Weights: params × bits/8. GPTQ/AWQ/bitsandbytes formats quantize the linear
// layers only; embeddings and lm_head stay in the compute dtype.
double base_weights_bytes(const Plan& p, std::string* why) {
    const double kept = p.weights.quantized_linear_only ? p.m.params.embeddings : 0;
    const double compute_bytes = p.compute.bits / 8;
    if (why) {
        *why = params_text(p.m.params.total - kept) + " params × " + plain_number(p.weights.bits / 8) + " bytes (" +
               p.weights.label + ")";
        if (kept > 0)
            *why += " + " + params_text(kept) + " embedding/head params × " + plain_number(compute_bytes) +
                    " bytes (kept " + p.compute.label + ")";
    }
    return (p.m.params.total - kept) * p.weights.bits / 8 + kept * compute_bytes;
}

double weights_term(const Plan& p, const Layout& l, std::string* why) {
    const double full = base_weights_bytes(p, why);
    const double adapters = uses_adapters(p.job) ? p.trainable * p.adapter_bytes : 0;
    const double per_gpu = (full + adapters) / shard(l, 3);
    if (why) {
        if (adapters > 0)
            *why += " + " + params_text(p.trainable) + " LoRA adapter params × " + plain_number(p.adapter_bytes) + " bytes";
        *why += " = " + gb_text(full + adapters) + shard_text(l, 3, per_gpu);
    }
    return per_gpu;
}

// Gradients: one per trainable parameter, in the dtype being trained.
double gradients_term(const Plan& p, const Layout& l, std::string* why) {
    const double trainable = p.trainable;
    if (!trains(p.job)) {
        if (why) *why = "none: inference computes no gradients";
        return 0;
    }
    const double each = uses_adapters(p.job) ? p.adapter_bytes : p.compute.bits / 8;
    const double per_gpu = trainable * each / shard(l, 2);
    if (why)
        *why = params_text(trainable) + " trainable params × " + plain_number(each) + " bytes = " + gb_text(trainable * each) +
               shard_text(l, 2, per_gpu);
    return per_gpu;
}

// Optimizer states per trainable parameter (ZeRO paper §3: mixed-precision
// Adam keeps fp32 master weights, momentum and variance = 12 bytes).
// 8-bit Adam (Dettmers et al. 2022): two 8-bit states plus an fp32 absmax per
// 2048-value block.
double optimizer_term(const Plan& p, const Layout& l, std::string* why) {
    const Job& job = p.job;
    const double trainable = p.trainable;
    if (!trains(job)) {
        if (why) *why = "none: inference keeps no optimizer state";
        return 0;
    }
    const bool master = job.mode == Mode::Train && job.master_weights && p.compute.bits < 32;
    const double master_bytes = master ? 4 * trainable : 0;
    double state_bytes = 0;
    std::string state_text;
    switch (job.optimizer) {
        case Optimizer::AdamW:
            state_bytes = 8 * trainable;
            state_text = "Adam m + v: 8 bytes";
            break;
        case Optimizer::SGD: state_text = "plain SGD: 0 bytes"; break;
        case Optimizer::SGDMomentum:
            state_bytes = 4 * trainable;
            state_text = "SGD momentum: 4 bytes";
            break;
        case Optimizer::Adam8bit:
            state_bytes = (2 + 2 * 4.0 / 2048) * trainable;
            state_text = "8-bit Adam m + v: 2.004 bytes";
            break;
        case Optimizer::Adafactor: {
            state_bytes = 4 * p.adafactor_values;
            state_text = "Adafactor factored second moment: " + params_text(p.adafactor_values) + " fp32 values";
            break;
        }
    }
    const double full = state_bytes + master_bytes;
    const double per_gpu = full / shard(l, 1);
    if (why) {
        *why = params_text(trainable) + " trainable params; " + state_text;
        if (job.optimizer != Optimizer::Adafactor) *why += " per param";
        if (master) *why += " + fp32 master weights: 4 bytes per param";
        *why += " = " + gb_text(full) + shard_text(l, 1, per_gpu);
    }
    return per_gpu;
}

// The sizes activation formulas use, as doubles; `use` names the purpose in
// the error when a config given as num_parameters lacks a dimension.
struct ActivationShape {
    double s, b, h, a, V, t;
};
ActivationShape activation_shape(const Plan& p, const Layout& l, const char* use) {
    const ModelConfig& c = p.m.config;
    return {static_cast<double>(p.job.seq), static_cast<double>(p.job.batch),
            static_cast<double>(hidden_of(c, use)), static_cast<double>(heads_of(c, use)),
            static_cast<double>(vocab_of(c, use)), static_cast<double>(l.tp)};
}

// Training activations, Korthikanti et al. 2022 ("Reducing Activation
// Recomputation in Large Transformer Models", eq. 1-2 and Table 2), bytes
// per layer with 16-bit activations:
//   s·b·h·(34 + 5·a·s/h)          no recomputation
//   s·b·h·34                      selective recomputation, or FlashAttention
//                                 (which recomputes the s×s scores too)
//   2·s·b·h  (+ one layer live)   full checkpointing keeps only layer inputs
// With tensor + sequence parallelism every term divides by t. Pipeline 1F1B:
// the first stage keeps p micro-batches of L/p layers = L layers' worth.
// The loss needs fp32 logits: 4·s·b·V / t.
double training_activations(const Plan& p, const Layout& l, std::string* why) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const ActivationShape d = activation_shape(p, l, "activation memory");
    const double s = d.s, b = d.b, h = d.h, a = d.a, V = d.V, t = d.t;
    const double L = static_cast<double>(layers_of(c, "activation memory"));
    const double scale = p.compute.bits / 16;  // the paper counts 16-bit activations
    const bool drop_scores = job.flash_attention || job.checkpointing == Checkpointing::Selective;
    const double per_layer = s * b * h * (34 + (drop_scores ? 0 : 5 * a * s / h)) * scale;
    const bool full = job.checkpointing == Checkpointing::Full;
    const double layers_bytes = (full ? L * 2 * s * b * h * scale + per_layer : L * per_layer) / t;
    const double logits = 4 * s * b * V / t;
    if (why) {
        const std::string layer_formula = drop_scores ? "34·s·b·h" : "s·b·h·(34 + 5·a·s/h)";
        *why = (full ? "full checkpointing: L × 2·s·b·h + one layer recomputed (" + layer_formula + ")"
                     : "L × " + layer_formula) + " = " + gb_text(layers_bytes * t) +
               (scale != 1 ? " (fp32: ×2)" : "") + (l.tp > 1 ? ", ÷ TP " + count(l.tp) : "") + " + fp32 logits 4·s·b·V = " +
               gb_text(logits * t) + (l.tp > 1 ? ", ÷ TP " + count(l.tp) : "") + "; s = " + count(job.seq) +
               ", b = " + count(job.batch) + ", h = " + count(c.hidden) + ", a = " + count(c.heads) +
               ", L = " + count(c.layers) + ", V = " + count(c.vocab) +
               (drop_scores ? (job.flash_attention ? " (FlashAttention: no s² score matrix)" : " (selective recompute)")
                            : "");
    }
    return layers_bytes + logits;
}

// Widest MLP a token passes through (MoE: top-k experts + shared ones).
double widest_mlp(const ModelConfig& c) {
    if (!c.is_moe()) return static_cast<double>(c.intermediate);
    const double moe = static_cast<double>(c.moe_intermediate * (c.experts_per_token + c.shared_experts) +
                                           c.shared_expert_intermediate);
    return std::max(moe, c.dense_layers > 0 ? static_cast<double>(c.intermediate) : 0.0);
}

// Inference working set: layers run one at a time, so only one layer's
// temporaries are live during prefill: residual + normed input (2h) and the
// gated MLP's gate, up and product (3·I), plus the a·s² score matrix when
// attention is not fused, plus fp32 logits for the last token.
double inference_activations(const Plan& p, const Layout& l, std::string* why) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const ActivationShape d = activation_shape(p, l, "the inference working set");
    const double s = d.s, b = d.b, h = d.h, a = d.a, V = d.V, t = d.t;
    const double I = c.intermediate > 0 ? widest_mlp(c) : 4 * h;
    const double bytes = p.compute.bits / 8;
    const double hidden_part = b * s * (2 * h + 3 * I / t) * bytes;
    const double scores = job.flash_attention ? 0 : b * (a / t) * s * s * bytes;
    const double logits = 4 * b * V / t;
    if (why)
        *why = "one layer live during prefill: b·s·(2h + 3·I" + std::string(l.tp > 1 ? "/TP" : "") + ") × " +
               plain_number(bytes) + " bytes = " + gb_text(hidden_part) +
               (job.flash_attention ? " (FlashAttention: no s² scores)"
                                    : " + attention scores b·a·s² = " + gb_text(scores)) +
               " + last-token fp32 logits = " + gb_text(logits) + "; I = " + plain_number(I);
    return hidden_part + scores + logits;
}

double activations_term(const Plan& p, const Layout& l, std::string* why) {
    return trains(p.job) ? training_activations(p, l, why) : inference_activations(p, l, why);
}

// KV cache: 2 (K and V) × layers × kv_heads × head_dim × seq × batch × bytes.
// GQA shrinks kv_heads; tensor parallelism splits heads (replicating them
// when TP > kv_heads). MLA (DeepSeek-V2 paper §2.1.2) caches one latent of
// kv_lora_rank + qk_rope_head_dim per token per layer, shared by all heads,
// hence replicated on every TP rank.
double kv_cache_term(const Plan& p, const Layout& l, std::string* why) {
    const Job& job = p.job;
    if (!p.kv) {
        if (why) *why = "none: training keeps no KV cache (keys and values are part of the activations)";
        return 0;
    }
    const ModelConfig& c = p.m.config;
    const char* use = "the KV cache";
    const NumberFormat& kv = *p.kv;
    const double bytes = kv.bits / 8, tokens = static_cast<double>(job.seq) * static_cast<double>(job.batch);
    const int64_t L = layers_of(c, use);
    const double layers_per_gpu = static_cast<double>(L) / static_cast<double>(l.pp);
    double per_token_layer, per_gpu_per_token_layer;
    std::string shape;
    if (c.is_mla()) {
        per_token_layer = static_cast<double>(c.kv_lora_rank + c.qk_rope_head_dim);
        per_gpu_per_token_layer = per_token_layer;
        shape = "MLA latent (kv_lora_rank " + count(c.kv_lora_rank) + " + rope " + count(c.qk_rope_head_dim) + ")";
    } else {
        const int64_t kv_heads = c.kv_heads > 0 ? c.kv_heads : heads_of(c, use);
        const int64_t head_dim = c.head_dim > 0 ? c.head_dim : hidden_of(c, use) / heads_of(c, use);
        per_token_layer = 2.0 * static_cast<double>(kv_heads * head_dim);
        per_gpu_per_token_layer = 2.0 * static_cast<double>((kv_heads + l.tp - 1) / l.tp * head_dim);
        shape = "2 × " + count(kv_heads) + " kv heads × " + count(head_dim);
    }
    const double full = static_cast<double>(L) * per_token_layer * tokens * bytes;
    const double per_gpu = layers_per_gpu * per_gpu_per_token_layer * tokens * bytes;
    if (why) {
        *why = count(L) + " layers × " + shape + " × " + count(job.seq) + " tokens × batch " + count(job.batch) +
               " × " + plain_number(bytes) + " bytes (" + kv.label + ") = " + gb_text(full) + " (" +
               printf_text("%.0f", static_cast<double>(L) * per_token_layer * bytes / 1024) + " KiB per token)";
        if (per_gpu != full) *why += ", " + gb_text(per_gpu) + " per GPU";
    }
    return per_gpu;
}

double overhead_term(const Job& job, double tensors, std::string* why) {
    const double fixed = job.overhead_gb * kBytesPerGB, slack = job.fragmentation * tensors;
    if (why)
        *why = "CUDA context + framework " + gb_text(fixed) + " + allocator fragmentation " +
               printf_text("%.0f%%", job.fragmentation * 100) + " of " + gb_text(tensors) + " = " + gb_text(fixed + slack);
    return fixed + slack;
}

// GPU counts tried when looking for the smallest setup that fits.
const int64_t kFitCounts[] = {1,   2,   4,   8,   16,  24,  32,   40,   48,   56,   64,   72,   80,  96,
                              112, 128, 160, 192, 224, 256, 320,  384,  448,  512,  640,  768,  896, 1024,
                              1280, 1536, 2048, 3072, 4096};

Breakdown breakdown_for(const Plan& p, const Layout& l, bool explain) {
    Breakdown b;
    auto why = [&](int term) { return explain ? &b.why[term] : nullptr; };
    b.bytes[kWeights] = weights_term(p, l, why(kWeights));
    b.bytes[kGradients] = gradients_term(p, l, why(kGradients));
    b.bytes[kOptimizer] = optimizer_term(p, l, why(kOptimizer));
    b.bytes[kActivations] = activations_term(p, l, why(kActivations));
    b.bytes[kKvCache] = kv_cache_term(p, l, why(kKvCache));
    b.bytes[kOverhead] = overhead_term(p.job, b.total(), why(kOverhead));
    return b;
}

// Sharded layout used for the fit table: inference splits the model with
// tensor parallelism inside an 8-GPU node and pipeline stages across nodes;
// training keeps the chosen TP/PP and shards everything with ZeRO-3 / FSDP
// over n data-parallel groups. False when the model cannot be split that far.
bool fit_layout(const Plan& p, int64_t n, Layout& l) {
    const ModelConfig& c = p.m.config;
    if (trains(p.job)) {
        l.tp = p.job.tp > 0 ? p.job.tp : 1;
        l.pp = p.job.pp;
        l.dp = n;
        l.zero = 3;
    } else {
        l.tp = std::min<int64_t>(n, 8);
        while (c.heads > 0 && c.heads % l.tp != 0) l.tp /= 2;  // an even split of the heads
        l.pp = n / l.tp;
        l.dp = 1;
        l.zero = 0;
    }
    l.gpus = l.dp * l.tp * l.pp;
    return !(c.heads > 0 && c.heads % l.tp != 0) && !(c.layers > 0 && l.pp > c.layers);
}

// Per-GPU memory only falls as n grows, so one pass over increasing counts
// finds every GPU's smallest count; GPUs smaller than the total at the
// largest count never fit and are skipped from the start.
std::vector<GpuFit> fit_gpus(const Plan& p, double per_gpu_total) {
    std::vector<GpuFit> fits;
    for (const Gpu& g : gpu_catalog()) fits.push_back({g.id, g.name, gpu_bytes(g), per_gpu_total <= gpu_bytes(g), 0});
    Layout l;
    double floor = 0;
    for (auto it = std::rbegin(kFitCounts); it != std::rend(kFitCounts); ++it)
        if (fit_layout(p, *it, l)) {
            floor = breakdown_for(p, l, false).total();
            break;
        }
    size_t unresolved = 0;
    for (const auto& f : fits) unresolved += f.capacity_bytes >= floor;
    for (int64_t n : kFitCounts) {
        if (unresolved == 0 || !fit_layout(p, n, l)) break;
        const double total = breakdown_for(p, l, false).total();
        for (auto& f : fits)
            if (f.gpus_needed == 0 && f.capacity_bytes >= floor && total <= f.capacity_bytes) {
                f.gpus_needed = l.gpus;
                --unresolved;
            }
    }
    return fits;
}

// The sentences under the breakdown: what the numbers mean for this job.
std::vector<std::string> notes_for(const Plan& plan, const Estimate& e) {
    const Model& m = plan.m;
    const Job& job = plan.job;
    std::vector<std::string> notes;
    const double P = m.params.total;
    if (m.config.is_moe())
        notes.push_back("Mixture of experts: all " + count(m.config.experts) + " experts per MoE layer stay in memory (" +
                          params_text(P) + " params), but a token uses only " + count(m.config.experts_per_token) +
                          " of them (" + params_text(m.params.active) + " active): memory follows the total, compute the active.");
    if (job.mode == Mode::Train) {
        const Breakdown one_gpu = breakdown_for(plan, Layout{}, false);
        const auto& by = one_gpu.bytes;
        const double states = (by[kWeights] + by[kGradients] + by[kOptimizer]) / P;
        notes.push_back("Full training keeps " + plain_number(states) + " bytes of model state per parameter "
                          "(weights + gradients + optimizer) against " + plain_number(e.weights_reference_bytes / P) +
                          " for the weights alone; with activations and overhead that is " +
                          printf_text("%.1f", e.ratio_to_weights) + " × the raw weights (" + gb_text(e.weights_reference_bytes) + ").");
    }
    if (uses_adapters(job))
        notes.push_back("LoRA rank " + count(job.lora_rank) + " on " + job.lora_targets + ": " +
                          params_text(e.trainable_params) + " trainable params (" +
                          printf_text("%.2f%%", 100 * e.trainable_params / P) + " of the model); the frozen base needs no gradients or optimizer state.");
    if (!trains(job) && e.layout.gpus > 1)
        notes.push_back("Inference over " + count(e.layout.gpus) + " GPUs: tensor parallel " + count(e.layout.tp) +
                          " × pipeline " + count(e.layout.pp) + (e.layout.dp > 1 ? " × " + count(e.layout.dp) + " replicas" : "") + ".");
    if (!trains(job) && job.zero > 0) notes.push_back("ZeRO applies to training only; ignored for inference.");
    if (trains(job) && e.layout.pp > 1)
        notes.push_back("Pipeline parallel (1F1B): the first stage holds activations of " + count(e.layout.pp) +
                          " micro-batches of L/" + count(e.layout.pp) + " layers, as much as the whole model's for one.");
    if (trains(job) && e.layout.dp > 1)
        notes.push_back("batch is the micro-batch per GPU; the global batch is " + count(job.batch * e.layout.dp) + ".");
    if (m.config.family == Family::Explicit) notes.push_back("Parameter count given explicitly (num_parameters).");
    return notes;
}

}  // namespace

// ---------------------------------------------------------------- public

const char* mode_name(Mode mode) { return name_of(kModes, mode); }
const char* optimizer_name(Optimizer o) { return name_of(kOptimizers, o); }
const char* checkpointing_name(Checkpointing c) { return name_of(kCheckpointing, c); }
std::vector<const char*> mode_names() { return names_of(kModes); }
std::vector<const char*> optimizer_names() { return names_of(kOptimizers); }
std::vector<const char*> checkpointing_names() { return names_of(kCheckpointing); }

Job parse_job(const json& j) {
    if (!j.is_object()) throw InputError("job", "must be a JSON object, got " + j.dump());
    Job job;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& key = it.key();
        const json& v = it.value();
        const std::string field = "job." + key;
        if (key == "mode") job.mode = read_choice(v, field, kModes);
        else if (key == "dtype") job.dtype = text_field(v, field);
        else if (key == "optimizer") job.optimizer = read_choice(v, field, kOptimizers);
        else if (key == "batch") job.batch = whole_field(v, field, 1, 1'000'000);
        else if (key == "seq") job.seq = whole_field(v, field, 1, 100'000'000);
        else if (key == "checkpointing") {
            if (v.is_boolean()) job.checkpointing = v.get<bool>() ? Checkpointing::Full : Checkpointing::None;
            else job.checkpointing = read_choice(v, field, kCheckpointing);
        }
        else if (key == "flash_attention") job.flash_attention = bool_field(v, field);
        else if (key == "kv_dtype") job.kv_dtype = text_field(v, field);
        else if (key == "lora_rank") job.lora_rank = whole_field(v, field, 1, 65'536);
        else if (key == "lora_targets") job.lora_targets = text_field(v, field);
        else if (key == "adapter_dtype") job.adapter_dtype = text_field(v, field);
        else if (key == "master_weights") job.master_weights = bool_field(v, field);
        else if (key == "gpus") job.gpus = whole_field(v, field, 1, 100'000);
        else if (key == "tp") job.tp = whole_field(v, field, 0, 1024);
        else if (key == "pp") job.pp = whole_field(v, field, 1, 1024);
        else if (key == "zero") job.zero = static_cast<int>(whole_field(v, field, 0, 3));
        else if (key == "overhead_gb") job.overhead_gb = number_field(v, field, 0, 1000);
        else if (key == "fragmentation") job.fragmentation = number_field(v, field, 0, 1);
        else
            throw InputError(field, "unknown field; known: mode, dtype, optimizer, batch, seq, checkpointing, "
                                    "flash_attention, kv_dtype, lora_rank, lora_targets, adapter_dtype, "
                                    "master_weights, gpus, tp, pp, zero, overhead_gb, fragmentation");
    }
    // Resolve the names now so a bad one is reported even when the mode ignores it.
    find_format(job.dtype, "job.dtype");
    if (job.kv_dtype != "auto") find_format(job.kv_dtype, "job.kv_dtype");
    const NumberFormat& adapter = find_format(job.adapter_dtype, "job.adapter_dtype");
    if (!adapter.trainable) throw InputError("job.adapter_dtype", "must be fp32, fp16 or bf16, got '" + job.adapter_dtype + "'");
    return job;
}

const char* term_key(int term) {
    static const char* keys[] = {"weights", "gradients", "optimizer", "activations", "kv_cache", "overhead"};
    return keys[term];
}
const char* term_label(int term) {
    static const char* labels[] = {"Weights", "Gradients", "Optimizer states", "Activations", "KV cache", "Overhead"};
    return labels[term];
}

double Breakdown::total() const {
    double t = 0;
    for (double b : bytes) t += b;
    return t;
}

Model prepare_model(const ModelConfig& config) {
    Model m{config, list_tensors(config), count_params(config)};
    return m;
}

double trainable_params(const Model& model, const Job& job) {
    switch (job.mode) {
        case Mode::Inference: return 0;
        case Mode::Train: return model.params.total;
        case Mode::LoRA:
        case Mode::QLoRA: return lora_params(model, job);
    }
    return 0;
}

Breakdown compute_breakdown(const Model& m, const Job& job, bool explain) {
    return breakdown_for(make_plan(m, job), resolve_layout(m, job), explain);
}

Estimate estimate(const Model& m, const Job& job, bool explain) {
    Estimate e;
    e.params = m.params;
    e.layout = resolve_layout(m, job);
    const Plan plan = make_plan(m, job);
    e.trainable_params = plan.trainable;
    e.breakdown = breakdown_for(plan, e.layout, explain);
    e.weight_format_label = plan.weights.label;
    e.weights_reference_bytes = base_weights_bytes(plan, nullptr);
    e.ratio_to_weights = e.breakdown.total() * static_cast<double>(e.layout.gpus) / e.weights_reference_bytes;
    if (explain) e.notes = notes_for(plan, e);
    e.fits = fit_gpus(plan, e.breakdown.total());
    return e;
}

}  // namespace vramcalc
