// The vocabulary of the list (intents, size classes, sorts), a pasted config's catalog fields, and what every
// row shares: its model's fields, its context and its pools.
#include "whatfits/what_fits.hpp"

#include <algorithm>
#include <cmath>

#include "serving/serving.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"
#include "whatfits/rows.hpp"

namespace vramcalc {
namespace {

template <class E>
struct Named {
    const char* name;
    E value;
};
const Named<FitIntent> kIntents[] = {{"chat", FitIntent::Chat}, {"serve", FitIntent::Serve}, {"finetune", FitIntent::Finetune}};
const Named<FitSort> kSorts[] = {{"size", FitSort::Size}, {"speed", FitSort::Speed}, {"headroom", FitSort::Headroom}, {"name", FitSort::Name}};

template <class E, size_t N>
E named(const Named<E> (&table)[N], const std::string& name, const std::string& field) {
    std::string all;
    for (const auto& t : table) {
        if (name == t.name) return t.value;
        all += (all.empty() ? "" : ", ") + std::string(t.name);
    }
    throw InputError(field, "must be one of " + all + ", got '" + short_text(name) + "'");
}
template <class E, size_t N>
const char* name_of(const Named<E> (&table)[N], E value) {
    for (const auto& t : table)
        if (t.value == value) return t.name;
    return "?";
}
template <class E, size_t N>
std::vector<const char*> names_of(const Named<E> (&table)[N]) {
    std::vector<const char*> out;
    for (const auto& t : table) out.push_back(t.name);
    return out;
}

// Size classes by total parameters (docs/what-fits.md): the bounds fall between the sizes people compare
// (1-3 B phone and laptop models; 7-9 B; 12-32 B; 70-123 B; 235 B and up).
struct SizeClass {
    const char* name;
    double below;  // total parameters under this
};
const SizeClass kSizes[] = {{"tiny", 3e9}, {"small", 10e9}, {"medium", 35e9}, {"large", 150e9}, {"frontier", 1e300}};

}  // namespace

const char* fit_intent_name(FitIntent i) { return name_of(kIntents, i); }
FitIntent fit_intent_named(const std::string& name, const std::string& field) {
    // The single-model question's intent names (job/intents.cpp) ask the same list: --intent run_locally
    // is chat on the user's own machine, fine_tune is finetune.
    if (name == "run_locally") return FitIntent::Chat;
    if (name == "fine_tune") return FitIntent::Finetune;
    return named(kIntents, name, field);
}
std::vector<const char*> fit_intent_names() { return names_of(kIntents); }
const char* fit_sort_name(FitSort s) { return name_of(kSorts, s); }
FitSort fit_sort_named(const std::string& name, const std::string& field) { return named(kSorts, name, field); }
std::vector<const char*> fit_sort_names() { return names_of(kSorts); }

const char* size_class(double params) {
    for (const SizeClass& s : kSizes)
        if (params < s.below) return s.name;
    return kSizes[4].name;
}
std::vector<const char*> size_class_names() {
    std::vector<const char*> out;
    for (const SizeClass& s : kSizes) out.push_back(s.name);
    return out;
}

ListedModel pasted_model(const std::string& name, std::shared_ptr<const Model> model) {
    ListedModel m;
    m.id = m.name = name;
    m.pasted = true;
    if (model) {
        const ModelConfig& c = model->config;
        m.family = c.model_type;
        m.modality = c.family == Family::Encoder ? "encoder" : c.arch == Arch::Whisper ? "audio" : c.vision.layers > 0 ? "vision" : "text";
    }
    m.model = std::move(model);
    return m;
}

bool machine_given(const Job& job, FitIntent intent, std::string& field, std::string& reason) {
    const bool gpu = device_bytes(job) > 0;
    if (intent != FitIntent::Chat && !gpu) {
        field = "job.gpu";
        reason = intent == FitIntent::Serve ? "serving on vLLM or SGLang needs a GPU: set gpu (e.g. h100, rtx4090) or device_gb"
                                            : "fine-tuning needs a GPU: set gpu (e.g. rtx4090, h100) or device_gb";
        return false;
    }
    if (!gpu && job.machine.ram_bytes <= 0) {
        field = job.machine.cpu_only ? "job.ram_gb" : "job.gpu";
        reason = job.machine.cpu_only
                     ? "a machine without a GPU runs everything in system RAM: set ram_gb to size the models against it"
                     : "say what your machine has: its GPU (gpu, e.g. rtx4090 or m3-max-128; or device_gb) and its system RAM "
                       "(ram_gb); with neither, no model can be sized";
        return false;
    }
    return true;
}

FitPool pool_of(bool known, double need, double have, const std::string& text) {
    FitPool p;
    p.known = known;
    p.need_bytes = need;
    p.have_bytes = have;
    if (known && have > 0) {
        p.headroom_bytes = have - need;
        p.headroom_share = (have - need) / have;
    }
    p.text = text;
    return p;
}

FitRow row_for(const ListedModel& lm, const FitRequest& r, const Job& base) {
    const Model& m = *lm.model;
    FitRow row;
    row.model = &lm;
    row.params_total = m.params.total;
    row.params_active = m.params.active;
    row.size = size_class(m.params.total);
    row.moe = m.config.is_moe();
    row.trained_context = m.config.context_length;
    // The context asked for (else the stated default), or the model's trained context when that is shorter:
    // Ollama caps num_ctx at it, and past it a model's answers degrade.
    row.context = r.context;
    if (row.trained_context > 0 && row.trained_context < r.context) {
        row.context = row.trained_context;
        row.context_capped = true;
    }
    row.job = base;
    row.job.seq = row.context;
    row.job.ctx_auto = false;
    if (row.job.model_id.empty()) row.job.model_id = lm.hf_id.empty() ? lm.id : lm.hf_id;
    return row;
}

namespace {

// Every figure of a row is a number (one model's NaN would otherwise stop the whole list's JSON).
void check_finite(const FitRow& r) {
    for (double v : {r.params_total, r.params_active, r.gpu.need_bytes, r.gpu.have_bytes, r.ram.need_bytes, r.ram.have_bytes,
                     r.weights_bytes, r.decode_tps, r.decode_low, r.decode_high, r.prefill_tps, r.prefill_low, r.prefill_high,
                     r.total_tps, r.total_low, r.total_high, r.ttft_s})
        if (!std::isfinite(v)) throw InputError("config", "a figure of this model's answer is not a number (a defect of the core)");
}

FitRow row_of(const ListedModel& m, const FitRequest& r) {
    switch (r.intent) {
        case FitIntent::Chat: return chat_row(m, r);
        case FitIntent::Serve: return serve_row(m, r);
        case FitIntent::Finetune: return finetune_row(m, r);
    }
    return chat_row(m, r);
}

}  // namespace

FitRow fit_row(const ListedModel& m, const FitRequest& r) {
    FitRow row;
    row.model = &m;
    try {
        row = row_of(m, r);
        check_finite(row);
        return row;
    } catch (const InputError& e) {
        // The core cannot answer this model for this intent (an architecture the engine does not run, a layout
        // it cannot split): the row says why, the list goes on.
        row = FitRow{};
        row.model = &m;
        if (m.model) {
            row.params_total = m.model->params.total;
            row.params_active = m.model->params.active;
            row.size = size_class(row.params_total);
            row.moe = m.model->config.is_moe();
            row.trained_context = m.model->config.context_length;
        }
        row.fit = "unsupported";
        row.error_field = e.field();
        row.error = e.what();
        row.fit_text = e.what();
    }
    return row;
}

}  // namespace vramcalc
