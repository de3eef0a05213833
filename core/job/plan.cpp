#include "job/plan.hpp"

#include <algorithm>
#include <set>

#include "text/errors.hpp"

namespace vramcalc {
namespace {

// The tensors that get adapters, for the job's scope (job.lora_scope, read by
// parse_job): every linear, the attention projections, the rest, or the named
// modules, each of which must exist in this model.
std::vector<const Tensor*> lora_targets(const Model& model, const Job& job) {
    if (model.config.family == Family::Explicit)
        throw InputError("config", "LoRA needs the architecture (model_type and dimensions) to know which "
                                   "matrices get adapters; num_parameters alone is not enough");
    std::vector<const Tensor*> picked;
    if (job.lora_scope != LoraScope::Named) {
        for (const auto& t : model.tensors) {
            const bool take = job.lora_scope == LoraScope::AllLinear   ? t.is_linear()
                              : job.lora_scope == LoraScope::Attention ? t.kind == TensorKind::Attention
                                                                       : t.is_linear() && t.kind != TensorKind::Attention;
            if (take) picked.push_back(&t);
        }
        return picked;
    }
    // PEFT matches a target against the end of each module's dotted name ("dense" is BERT's
    // attention.output.dense, intermediate.dense and output.dense; "q" is T5's q and EncDecAttention.q).
    auto matches = [](const std::string& module, const std::string& name) {
        return module == name || (module.size() > name.size() && module[module.size() - name.size() - 1] == '.' &&
                                  module.compare(module.size() - name.size(), name.size(), name) == 0);
    };
    for (const std::string& name : job.lora_modules) {
        bool found = false;
        for (const auto& t : model.tensors)
            if ((t.is_linear() || t.kind == TensorKind::Head) && matches(t.module, name)) {  // PEFT can target lm_head by name
                picked.push_back(&t);
                found = true;
            }
        if (!found) {
            std::set<std::string> available;
            for (const auto& t : model.tensors)
                if (t.is_linear()) available.insert(t.module);
            std::string list;
            for (const auto& a : available) list += (list.empty() ? "" : ", ") + a;
            throw InputError("job.lora_targets", "no linear module named '" + short_text(name) +
                                                     "' in this model; use all-linear, attention, mlp or some of: " + list);
        }
    }
    return picked;
}

// The rank of B·A is at most min(in, out) of the matrix it adapts (Hu et al. 2021 §4.1: r ≪ min(d, k)):
// a larger rank adds parameters and memory but no capacity. Refused, naming the matrix with the smallest side.
void check_lora_rank(const std::vector<const Tensor*>& targets, int64_t rank) {
    const Tensor* narrowest = nullptr;
    for (const Tensor* t : targets)
        if (!narrowest || std::min(t->in, t->out) < std::min(narrowest->in, narrowest->out)) narrowest = t;
    if (!narrowest || rank <= std::min(narrowest->in, narrowest->out)) return;
    throw InputError("job.lora_rank", "must be at most " + std::to_string(std::min(narrowest->in, narrowest->out)) +
                                          ", the smaller side of the targeted matrix " + narrowest->module + " (" +
                                          std::to_string(narrowest->in) + " × " + std::to_string(narrowest->out) +
                                          "); a larger rank adds parameters but no capacity, got " + std::to_string(rank));
}

// LoRA (Hu et al. 2021): W + B·A with A: r × in, B: out × r -> r·(in + out) per matrix.
double lora_params(const std::vector<const Tensor*>& targets, int64_t rank) {
    double p = 0;
    for (const Tensor* t : targets)
        p += static_cast<double>(rank) * static_cast<double>(t->in + t->out) * static_cast<double>(t->copies);
    return p;
}

// Adafactor (Shazeer & Stern 2018) keeps a factored second moment: a row and a
// column vector per matrix, a full vector for 1-D tensors; no first moment
// (beta1 = None, the Hugging Face default).
double adafactor_state_values(const Plan& p) {
    if (p.m.config.family == Family::Explicit)
        throw InputError("config", "Adafactor's factored state depends on matrix shapes; give the architecture, "
                                   "not only num_parameters");
    double values = 0;
    if (uses_adapters(p.job)) {
        const double r = static_cast<double>(p.job.lora_rank);
        for (const Tensor* t : p.lora)
            values += (static_cast<double>(t->in) + r + r + static_cast<double>(t->out)) * static_cast<double>(t->copies);
        return values;
    }
    for (const auto& t : p.m.tensors)
        values += static_cast<double>(t.in == 1 ? t.out : t.in + t.out) * static_cast<double>(t.copies);
    return values;
}

// The dtype of matmuls, activations and gradients: the job's dtype when it
// is a float format, else bf16 (quantized weights are dequantized to it).
const NumberFormat& compute_format(const Job& job) {
    return job.dtype->trainable ? *job.dtype : format(FormatId::Bf16);
}

// dtype auto keeps the checkpoint's own storage where the base weights stay
// frozen as shipped: inference and LoRA (PEFT trains adapters on GPTQ/AWQ/FP8
// bases; full training dequantizes, QLoRA re-quantizes to NF4).
bool keeps_shipped(const Job& job) { return job.dtype_auto && (job.mode == Mode::Inference || job.mode == Mode::LoRA); }

const WeightQuant* shipped_quant(const Model& m, const Job& job) {
    return keeps_shipped(job) && m.config.quant.format ? &m.config.quant : nullptr;
}

// How the base weights are stored; QLoRA with a float dtype means an NF4
// base computing in that dtype.
const NumberFormat& weight_format(const Job& job, const WeightQuant* shipped) {
    if (shipped) return *shipped->format;
    if (job.mode == Mode::QLoRA && job.dtype->trainable) return format(FormatId::Nf4);
    return *job.dtype;
}

}  // namespace


double trainable_params(const Model& model, const Job& job) {
    switch (job.mode) {
        case Mode::Inference: return 0;
        case Mode::Train: return model.params.total;
        case Mode::LoRA:
        case Mode::QLoRA: {
            const std::vector<const Tensor*> targets = lora_targets(model, job);
            check_lora_rank(targets, job.lora_rank);
            return lora_params(targets, job.lora_rank);
        }
    }
    return 0;
}

Plan make_plan(const Model& given, const Job& job) {
    // The job's head (and label count), resolved once here: the model re-listed with it.
    std::shared_ptr<const Model> reheaded =
        with_head(given, job.head_auto ? given.config.head : job.head, job.num_labels, "job.head");
    const Model& m = reheaded ? *reheaded : given;
    const WeightQuant* shipped = shipped_quant(m, job);
    Plan p{reheaded, m, job, compute_format(job), weight_format(job, shipped), shipped, false, nullptr, {}};
    p.exact = keeps_shipped(job) && m.exact.present();
    if (!trains(job)) p.kv = job.kv_dtype ? job.kv_dtype : &p.compute;
    // Targets are checked in every mode, so a bad list is reported even when unused.
    if (uses_adapters(job) || (m.config.family != Family::Explicit && job.lora_scope != LoraScope::AllLinear)) {
        p.lora = lora_targets(m, job);
        for (const Tensor* t : p.lora) p.lora_roles |= t->role;
    }
    if (!uses_adapters(job)) {
        p.lora.clear();
        p.lora_roles = 0;
    }
    check_lora_rank(p.lora, job.lora_rank);
    p.trainable = job.mode == Mode::Train ? m.params.total : uses_adapters(job) ? lora_params(p.lora, job.lora_rank) : 0;
    if (trains(job) && job.optimizer == Optimizer::Adafactor) p.adafactor_values = adafactor_state_values(p);
    for (const auto& t : m.tensors) {
        double& group = t.kind == TensorKind::Embedding ? p.embedding_params
                        : t.kind == TensorKind::Head    ? p.head_params
                        : t.kind == TensorKind::RoutedExpert ? p.expert_params
                                                             : p.dense_params;
        group += t.params();
        if (t.is_linear()) (t.kind == TensorKind::RoutedExpert ? p.linear_expert : p.linear_dense) += t.params();
        const double one = static_cast<double>(t.in) * static_cast<double>(t.out);
        p.largest_tensor = std::max(p.largest_tensor, one);
        if (t.is_linear()) p.largest_linear = std::max(p.largest_linear, one);
        if (m.config.layers > 0 && t.kind != TensorKind::Embedding && t.kind != TensorKind::Head)
            p.layer_params += t.params() / static_cast<double>(m.config.layers);
    }
    if (m.tensors.empty()) p.dense_params = m.params.total;  // a num_parameters-only config: one group
    // Trainable parameters by the same groups: every weight for full training, the adapters of the
    // targeted matrices for LoRA (they sit beside, and split like, the matrix they adapt).
    if (job.mode == Mode::Train) {
        p.trainable_embedding = p.embedding_params, p.trainable_head = p.head_params;
        p.trainable_expert = p.expert_params, p.trainable_dense = p.dense_params;
    } else if (uses_adapters(job)) {
        for (const Tensor* t : p.lora) {
            const double a = static_cast<double>(job.lora_rank) * static_cast<double>(t->in + t->out) * static_cast<double>(t->copies);
            (t->kind == TensorKind::Head ? p.trainable_head : t->kind == TensorKind::RoutedExpert ? p.trainable_expert : p.trainable_dense) += a;
        }
    }
    return p;
}

}  // namespace vramcalc
