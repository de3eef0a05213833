#include "memory/states.hpp"

#include <algorithm>

#include "text/units.hpp"

namespace vramcalc {
namespace {

// Full training under autocast keeps fp32 parameters and gradients and casts
// weights to 16 bits for each matmul (torch.autocast, HF Trainer bf16=True).
bool autocast(const Plan& p) { return p.job.mode == Mode::Train && p.job.precision == Precision::Autocast; }

double trained_param_bytes(const Plan& p) {
    if (uses_adapters(p.job)) return p.job.adapter_dtype->bits / 8;
    return autocast(p) ? 4 : p.compute.bits / 8;
}

double gradient_bytes(const Plan& p) { return fp32_gradient_buffers(p.job) ? 4 : trained_param_bytes(p); }

// Optimizer state bytes per trainable parameter (m and v for Adam).
double state_bytes_per_param(const Plan& p, std::string* text) {
    const double od = p.job.optimizer_dtype->bits / 8;
    switch (p.job.optimizer) {
        case Optimizer::AdamW:
            if (text) *text = "Adam m + v: 2 × " + plain_number(od) + " bytes (" + p.job.optimizer_dtype->label + ")";
            return 2 * od;
        case Optimizer::SGD:
            if (text) *text = "plain SGD: 0 bytes";
            return 0;
        case Optimizer::SGDMomentum:
            if (text) *text = "SGD momentum: " + plain_number(od) + " bytes";
            return od;
        case Optimizer::Adam8bit:
            // bitsandbytes 8-bit Adam (Dettmers et al. 2022): two 8-bit states, each with an fp32
            // absmax per 256-value block (bitsandbytes 0.45 optim/optimizer.py Optimizer2State.init_state).
            if (text) *text = "8-bit Adam m + v: 2.03 bytes";
            return 2 + 2 * 4.0 / 256;
        case Optimizer::Adafactor:
            return 0;  // factored: counted per matrix, not per parameter
    }
    return 0;
}

// fp32 master weights: full training with 16-bit params under "master" precision.
bool master_copy(const Plan& p) {
    return p.job.mode == Mode::Train && p.job.precision == Precision::Master && p.compute.bits < 32;
}

double optimizer_full(const Plan& p, std::string* text) {
    double bytes = state_bytes_per_param(p, text) * p.trainable;
    if (p.job.optimizer == Optimizer::Adafactor) {
        bytes = 4 * p.adafactor_values;
        if (text) *text = "Adafactor factored second moment: " + params_text(p.adafactor_values) + " fp32 values";
    }
    if (master_copy(p)) bytes += 4 * p.trainable;
    return bytes;
}

// FSDP(sync_module_states=True) with a model loaded on rank 0 (AnswerDotAI fsdp_qlora train.py;
// torch/distributed/fsdp/_init_utils.py _sync_module_states): unit by unit, the module is moved
// to the GPU whole, broadcast in buckets of at most 250 MiB (PARAM_BROADCAST_BUCKET_SIZE),
// flattened into one new tensor (FlatParamHandle.flatten_tensors: torch.cat), and when sharded
// its shard is cloned and the flat tensor freed (FlatParamHandle.shard, _get_shard: clone).
// The moved tensors, the flat copy and the bucket of the largest unit stay reserved by the
// caching allocator. The largest unit is the root (embeddings, final norm, untied head; every
// decoder layer is its own unit) or one decoder layer as loaded.
double wrap_cache(const Plan& p, const Layout& l, const Share& s) {
    const ModelConfig& c = p.m.config;
    const double B = p.compute.bits / 8;
    const double root = static_cast<double>(c.vocab) * static_cast<double>(c.hidden) * (c.tied_embeddings ? 1 : 2) * B;
    const double layer = p.layer_params * (uses_adapters(p.job) ? p.weights.bits / 8 : B);
    const double unit = std::max(root, layer) / static_cast<double>(l.tp);
    constexpr double kBroadcastBucket = 250.0 * 1024 * 1024;
    return unit + (l.zero >= 3 && s.dense_dp > 1 ? unit : 0) + std::min(kBroadcastBucket, unit);
}

// QLoRA of an MoE model through bitsandbytes (PEFT / transformers BitsAndBytesConfig): transformers v5
// stores every MoE's routed experts as fused 3-D nn.Parameters (@use_experts_implementation, e.g.
// Qwen3MoeExperts.gate_up_proj [experts, 2I, h]); bitsandbytes replaces nn.Linear modules only, so the
// experts stay in the compute dtype (bitsandbytes #1849). Under v4 most MoEs listed their experts as
// nn.Linear modules and were quantized, except those that always fused them (Llama 4, Granite MoE,
// DBRX, JetMoE: bitsandbytes PR #1720). Unsloth quantizes them itself (unsloth-zoo #527, 2026.6).
bool bnb_skips_experts(const Plan& p) {
    const Job& job = p.job;
    if (job.mode != Mode::QLoRA || p.shipped || !p.m.config.is_moe() || job.framework == Framework::Unsloth) return false;
    if (job.qlora_matmul != QloraMatmul::Bitsandbytes) return false;
    const std::string& t = p.m.config.model_type;
    const bool always_fused = t == "llama4" || t == "llama4_text" || t == "granitemoe" || t == "dbrx" || t == "jetmoe";
    return always_fused || job.transformers_major >= 5;
}

}  // namespace

// GPTQ/AWQ/bitsandbytes formats quantize the linear layers only; embeddings
// and lm_head stay in the compute dtype. A quantization_config says the
// same with its own bits per weight (scales and zeros of its group size,
// core/config_quant.cpp); gpt-oss's MXFP4 covers the routed experts only
// (its quantization_config modules_to_not_convert: attention, router,
// embeddings and head stay bf16).
double base_weights_bytes(const Plan& p, std::string* why) {
    if (p.exact) {
        if (why) *why = std::to_string(static_cast<long long>(p.m.exact.bytes)) + " bytes, exact from the " + p.m.exact.source;
        return p.m.exact.bytes;
    }
    const double compute_bytes = p.compute.bits / 8;
    if (p.shipped) {
        // Tensor by tensor: the modules its skip list (or compressed-tensors' targets) keeps stay 16-bit too.
        const QuantSplit& q = p.m.quant;
        const double each = p.shipped->bits / 8;
        if (why) {
            const std::string kept_what = p.shipped->experts_only ? " non-expert"
                                          : q.head_quantized      ? " embedding and norm"
                                                                  : " embedding, head and norm";
            *why = params_text(q.quantized) + " params × " + plain_number(each) + " bytes (" + p.shipped->scheme + ": " +
                   p.shipped->bits_source + " bits, from quantization_config) + " + params_text(q.kept - q.listed) + kept_what +
                   " params" + (q.listed > 0 ? " and " + params_text(q.listed) + " in the " + std::to_string(q.listed_modules) +
                                                   " modules its " + p.shipped->not_converted_key + " list keeps"
                                             : std::string()) +
                   " × " + plain_number(compute_bytes) + " bytes (kept " + p.compute.label + ")";
        }
        return q.quantized * each + q.kept * compute_bytes;
    }
    const double experts = bnb_skips_experts(p) ? p.expert_params : 0;  // issue 36: QLoRA of MoE models
    const double kept = (p.weights.quantized_linear_only ? p.m.params.embeddings : 0) + experts;
    const double each = autocast(p) ? 4 : p.weights.bits / 8;
    if (why) {
        *why = params_text(p.m.params.total - kept) + " params × " + plain_number(each) + " bytes (" +
               (autocast(p) ? std::string("FP32 under autocast") : std::string(p.weights.label)) + ")";
        if (kept - experts > 0)
            *why += " + " + params_text(kept - experts) + " embedding/head params × " + plain_number(compute_bytes) + " bytes (kept " +
                    p.compute.label + ")";
        if (experts > 0)
            *why += " + " + params_text(experts) + " routed-expert params left " + p.compute.label + " × " + plain_number(compute_bytes) +
                    " bytes: transformers " + (p.job.transformers_major >= 5 ? "v5" : "v4") +
                    " keeps this model's experts as fused 3-D nn.Parameters, which bitsandbytes' nn.Linear replacement skips "
                    "(bitsandbytes #1849; unsloth #4040 loaded " + gb_text(153.0 * 1073741824.0) + "). Fix: transformers < 5 "
                    "(ModuleList experts are quantized), "
                    "Unsloth >= 2026.6 (unsloth-zoo #527 quantizes them), or bitsandbytes' Experts4bit (PR #1965)";
    }
    return (p.m.params.total - kept) * each + kept * compute_bytes;
}

// The share of the trainable parameters this GPU keeps at a ZeRO stage (1: all of them on one GPU).
double trainable_share(const Plan& p, const Layout& l, const Share& s, int zero_needed) {
    return p.trainable > 0 ? held_params(s, l, true, zero_needed) / p.trainable : 0;
}

// bitsandbytes 4-bit weights: each Params4bit's quant_state (the absmax per 64 values, 8-bit with
// double quantization, and its fp32 absmax per 256 blocks: the NF4 format's bits beyond 4) is an
// attribute, not a parameter, so FSDP neither shards nor offloads it: every GPU keeps its stage's
// whole (fsdp_qlora train.py load_and_quantize quantizes on the GPU and moves only the data).
// The whole model's quant-state bytes when FSDP would otherwise shard or offload them, else 0.
double unsharded_quant_state(const Plan& p, const Layout& l) {
    const bool bnb = p.job.mode == Mode::QLoRA && p.job.qlora_matmul == QloraMatmul::Bitsandbytes && !p.shipped && !p.exact;
    if (!bnb || !(l.zero >= 3 || p.job.offload_params)) return 0;
    const double quantized = p.m.params.total - (p.weights.quantized_linear_only ? p.m.params.embeddings : 0);
    return quantized * (p.weights.bits - 4) / 8;
}

double weights_term(const Plan& p, const Layout& l, const Share& s, std::string* why) {
    const double full = base_weights_bytes(p, why);
    const double adapters = uses_adapters(p.job) ? p.trainable * trained_param_bytes(p) : 0;
    const double share = s.model_params > 0 ? held_params(s, l, false, 3) / s.model_params : 0;
    const double quant_full = unsharded_quant_state(p, l);
    const double quant_state = s.model_params > 0 ? quant_full * held_params(s, l, false, 99) / s.model_params : 0;
    const double per_gpu = (p.job.offload_params ? 0 : (full - quant_full) * share + adapters * trainable_share(p, l, s, 3)) + quant_state;
    if (why) {
        if (adapters > 0)
            *why += " + " + params_text(p.trainable) + " LoRA adapter params × " + plain_number(trained_param_bytes(p)) + " bytes";
        *why += " = " + gb_text(full + adapters) +
                (p.job.offload_params ? "; offloaded to CPU memory, gathered one layer at a time" : share_text(s, l, 3, per_gpu));
        if (quant_state > 0)
            *why += "; the 4-bit quant states stay whole on every GPU (bitsandbytes keeps them outside FSDP's parameters): " +
                    gb_text(quant_state);
    }
    return per_gpu;
}

// Gradients: one per trainable parameter, in the dtype being trained (fp32
// with fp32 gradient buffers: Megatron main_grad, DeepSpeed bf16 accumulation).
double gradients_term(const Plan& p, const Layout& l, const Share& s, std::string* why) {
    if (!trains(p.job)) {
        if (why) *why = "none: inference computes no gradients";
        return 0;
    }
    const double each = gradient_bytes(p);
    const double on_gpu = p.trainable * each * trainable_share(p, l, s, 2);
    if (why)
        *why = params_text(p.trainable) + " trainable params × " + plain_number(each) + " bytes = " +
               gb_text(p.trainable * each) +
               (optimizer_on_cpu(p.job) ? "; the optimizer steps on the CPU, so they are copied to CPU memory as they are reduced"
                                        : share_text(s, l, 2, on_gpu));
    return optimizer_on_cpu(p.job) ? 0 : on_gpu;
}

// Optimizer states per trainable parameter (ZeRO paper §3: mixed-precision
// Adam keeps fp32 master weights, momentum and variance = 12 bytes).
double optimizer_term(const Plan& p, const Layout& l, const Share& s, std::string* why) {
    if (!trains(p.job)) {
        if (why) *why = "none: inference keeps no optimizer state";
        return 0;
    }
    std::string text;
    const double full = optimizer_full(p, why ? &text : nullptr);
    const double per_gpu = full * trainable_share(p, l, s, 1);
    if (why) {
        *why = params_text(p.trainable) + " trainable params; " + text;
        if (p.job.optimizer != Optimizer::Adafactor) *why += " per param";
        if (master_copy(p)) *why += " + fp32 master weights: 4 bytes per param";
        *why += " = " + gb_text(full) + share_text(s, l, 1, per_gpu);
        if (optimizer_on_cpu(p.job)) *why += "; offloaded: held and stepped in CPU memory";
        else if (p.job.paged_optimizer) *why += "; paged: unified memory that torch does not count, evicted to CPU under pressure";
    }
    return optimizer_on_cpu(p.job) ? 0 : per_gpu;
}

double master_weights_term(const Plan& p, const Layout& l, const Share& s) {
    if (!master_copy(p) || optimizer_on_cpu(p.job)) return 0;
    return 4 * p.trainable * trainable_share(p, l, s, 1);
}

StepBuffers step_buffers(const Plan& p, const Layout& l, const Share& s, double optimizer_on_gpu, double offloaded_activations) {
    StepBuffers b;
    b.cpu = offloaded_activations;
    if (!trains(p.job)) return b;
    const Job& job = p.job;
    const double B = p.compute.bits / 8;
    const double grads = optimizer_on_cpu(job) ? 0 : p.trainable * gradient_bytes(p) * trainable_share(p, l, s, 2);
    // Gradients live from the first micro-batch on when they accumulate over several, or when
    // they live in persistent buffers (fp32 main_grad, Megatron's DDP grad buffer); otherwise
    // zero_grad(set_to_none=True) frees them.
    const bool persistent = job.fp32_gradients || job.sharding_impl == ShardingImpl::Megatron;
    b.grads_in_forward = (s.microbatches > 1 || persistent) ? grads : 0;
    // Optimizer in backward: each tensor is stepped as its gradient is ready,
    // so at most the largest tensor's gradient is live (torchtune optimizer_in_bwd).
    const double largest = uses_adapters(job) ? 0 : p.largest_tensor;
    b.grads_at_end = job.optimizer_in_backward ? largest * gradient_bytes(p) : grads;
    // The output projection's weight gradient appears during the loss backward (the head, or
    // the tied embedding, whose gradient then waits for the embedding's own backward).
    if (job.mode == Mode::Train && s.last && !optimizer_on_cpu(job))
        b.head_grad = s.head * gradient_bytes(p) / (l.zero >= 2 ? s.dense_dp : 1);
    if (job.sync_module_states) b.cached_load = wrap_cache(p, l, s);
    // torch _multi_tensor_adamw: torch._foreach_sqrt(exp_avg_sqs) allocates a copy of
    // the second moments for the whole group; fused kernels step in place.
    if (job.optimizer_impl == OptimizerImpl::Foreach && !job.optimizer_in_backward && !optimizer_on_cpu(job) &&
        (job.optimizer == Optimizer::AdamW || job.optimizer == Optimizer::SGDMomentum))
        b.optimizer_temp = p.trainable * job.optimizer_dtype->bits / 8 * trainable_share(p, l, s, 1);
    // DeepSpeed ZeRO-2 upcasts its gradient partition to fp32 for the step; ZeRO-3 one sub-group
    // (sub_group_size, 1e9 elements) at a time (stage3.py _prepare_fp32_grad_for_sub_group).
    if (job.fp32_gradients && !fp32_gradient_buffers(job) && !optimizer_on_cpu(job)) {
        const double partition = p.trainable * trainable_share(p, l, s, 2);
        b.optimizer_temp += 4 * (l.zero >= 3 ? std::min(1e9, partition) : partition);
    }
    b.comm = comm_buffers(p, l, s);
    if (autocast(p)) b.autocast_copies = held_params(s, l, false, 3) * 2;
    if (job.mode == Mode::QLoRA) b.dequantized = p.largest_linear * B;
    if (job.paged_optimizer && !optimizer_on_cpu(job)) b.paged = optimizer_on_gpu;
    if (optimizer_on_cpu(job)) {
        // The optimizer's states, fp32 master weights and the gradients it reads (fp32 in
        // DeepSpeed's CPU Adam, the training dtype with FSDP's CPU offload) in CPU memory.
        const double grad_bytes = job.sharding_impl == ShardingImpl::DeepSpeed ? 4 : gradient_bytes(p);
        b.cpu += (optimizer_full(p, nullptr) + grad_bytes * p.trainable) * trainable_share(p, l, s, 1);
    }
    if (job.offload_params && s.model_params > 0) b.cpu += base_weights_bytes(p, nullptr) * held_params(s, l, false, 3) / s.model_params;
    return b;
}

}  // namespace vramcalc
