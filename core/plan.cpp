#include "plan.hpp"

#include <algorithm>
#include <cstring>
#include <set>

#include "errors.hpp"

namespace vramcalc {
namespace {

// Which linear layers get adapters: "all-linear" (QLoRA paper setting),
// "attention", "mlp", or a comma-separated list of module names (each once).
std::vector<const Tensor*> lora_targets(const Model& model, const Job& job) {
    if (model.config.family == Family::Explicit)
        throw InputError("config", "LoRA needs the architecture (model_type and dimensions) to know which "
                                   "matrices get adapters; num_parameters alone is not enough");
    std::vector<const Tensor*> picked;
    const std::string& spec = job.lora_targets;
    if (spec == "all-linear" || spec == "attention" || spec == "mlp") {
        for (const auto& t : model.tensors) {
            const bool take = spec == "all-linear" ? t.is_linear()
                              : spec == "attention" ? t.kind == TensorKind::Attention
                                                    : t.is_linear() && t.kind != TensorKind::Attention;
            if (take) picked.push_back(&t);
        }
        return picked;
    }
    std::set<std::string> seen;
    size_t start = 0;
    while (start <= spec.size()) {
        size_t end = spec.find(',', start);
        if (end == std::string::npos) end = spec.size();
        std::string name = spec.substr(start, end - start);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        start = end + 1;
        if (!seen.insert(name).second)
            throw InputError("job.lora_targets", "names '" + name + "' twice; list each module once");
        bool found = false;
        for (const auto& t : model.tensors)
            if ((t.is_linear() || t.kind == TensorKind::Head) && name == t.module) {  // PEFT can target lm_head by name
                picked.push_back(&t);
                found = true;
            }
        if (!found) {
            std::set<std::string> available;
            for (const auto& t : model.tensors)
                if (t.is_linear()) available.insert(t.module);
            std::string list;
            for (const auto& a : available) list += (list.empty() ? "" : ", ") + a;
            throw InputError("job.lora_targets", "no linear module named '" + name.substr(0, 64) +
                                                     "' in this model; use all-linear, attention, mlp or some of: " + list);
        }
    }
    return picked;
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
    return job.dtype->trainable ? *job.dtype : find_format("bf16", "job.dtype");
}

// dtype auto keeps the checkpoint's own storage where the base weights stay
// frozen as shipped: inference and LoRA (PEFT trains adapters on GPTQ/AWQ/FP8
// bases; full training dequantizes, QLoRA re-quantizes to NF4).
bool keeps_shipped(const Job& job) { return job.dtype_auto && (job.mode == Mode::Inference || job.mode == Mode::LoRA); }

const WeightQuant* shipped_quant(const Model& m, const Job& job) {
    return keeps_shipped(job) && m.config.quant.present() && has_format(m.config.quant.format) ? &m.config.quant : nullptr;
}

// How the base weights are stored; QLoRA with a float dtype means an NF4
// base computing in that dtype.
const NumberFormat& weight_format(const Job& job, const WeightQuant* shipped) {
    if (shipped) return find_format(shipped->format, "config.quantization_config");
    if (job.mode == Mode::QLoRA && job.dtype->trainable) return find_format("nf4", "job.dtype");
    return *job.dtype;
}

}  // namespace

uint32_t role_of(const Tensor& t) {
    struct Named {
        const char* module;
        uint32_t role;
    };
    static const Named kNames[] = {
        {"q_proj", kRoleQ}, {"k_proj", kRoleK}, {"v_proj", kRoleV}, {"c_attn", kRoleQkv},
        {"query_key_value", kRoleQkv}, {"o_proj", kRoleO}, {"dense", kRoleO}, {"gate_proj", kRoleGate},
        {"up_proj", kRoleUp}, {"c_fc", kRoleUp}, {"dense_h_to_4h", kRoleUp}, {"down_proj", kRoleDown},
        {"dense_4h_to_h", kRoleDown}, {"q_a_proj", kRoleQLatent}, {"q_b_proj", kRoleQUp},
        {"kv_a_proj_with_mqa", kRoleKvLatent}, {"kv_b_proj", kRoleKvUp},
    };
    // GPT-2 names both output projections c_proj; the tensor kind tells them apart.
    if (std::strcmp(t.module, "c_proj") == 0) return t.kind == TensorKind::Attention ? kRoleO : kRoleDown;
    for (const auto& n : kNames)
        if (std::strcmp(t.module, n.module) == 0) return n.role | (t.kind == TensorKind::RoutedExpert ? uint32_t{kRoleExpert} : uint32_t{0});
    return 0;
}

Model prepare_model(const ModelConfig& config) { return Model{config, list_tensors(config), count_params(config), {}}; }

double trainable_params(const Model& model, const Job& job) {
    switch (job.mode) {
        case Mode::Inference: return 0;
        case Mode::Train: return model.params.total;
        case Mode::LoRA:
        case Mode::QLoRA: return lora_params(lora_targets(model, job), job.lora_rank);
    }
    return 0;
}

Plan make_plan(const Model& m, const Job& job) {
    const WeightQuant* shipped = shipped_quant(m, job);
    Plan p{m, job, compute_format(job), weight_format(job, shipped), shipped, false, nullptr, {}};
    p.exact = keeps_shipped(job) && m.exact.present();
    if (!trains(job)) p.kv = job.kv_dtype ? job.kv_dtype : &p.compute;
    // Targets are checked in every mode, so a bad list is reported even when unused.
    if (uses_adapters(job) || (m.config.family != Family::Explicit && job.lora_targets != "all-linear")) {
        p.lora = lora_targets(m, job);
        for (const Tensor* t : p.lora) p.lora_roles |= role_of(*t);
    }
    if (!uses_adapters(job)) {
        p.lora.clear();
        p.lora_roles = 0;
    }
    p.trainable = job.mode == Mode::Train ? m.params.total : uses_adapters(job) ? lora_params(p.lora, job.lora_rank) : 0;
    if (trains(job) && job.optimizer == Optimizer::Adafactor) p.adafactor_values = adafactor_state_values(p);
    for (const auto& t : m.tensors) {
        const double one = static_cast<double>(t.in) * static_cast<double>(t.out);
        p.largest_tensor = std::max(p.largest_tensor, one);
        if (t.is_linear()) p.largest_linear = std::max(p.largest_linear, one);
        if (m.config.layers > 0 && t.kind != TensorKind::Embedding && t.kind != TensorKind::Head)
            p.layer_params += t.params() / static_cast<double>(m.config.layers);
    }
    return p;
}

}  // namespace vramcalc
