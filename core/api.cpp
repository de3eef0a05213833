#include "api.hpp"

#include <cmath>

#include "errors.hpp"
#include "gpus.hpp"
#include "json_text.hpp"
#include "units.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

json error_json(const std::string& field, const std::string& message) {
    return {{"ok", false}, {"error", {{"field", field}, {"message", message}}}};
}

// Runs `body`, turning any failure into the error shape so no caller ever
// sees an exception cross the JSON boundary (wasm has no good way to show one).
template <class Body>
std::string guarded(Body body) {
    try {
        return body().dump();
    } catch (const InputError& e) {
        return error_json(e.field(), e.what()).dump();
    } catch (const std::exception& e) {
        return error_json("internal", std::string("internal error: ") + e.what()).dump();
    }
}

// A NaN or infinity in the output would be a bug; refuse to show it.
void check_finite(const json& j, const std::string& path) {
    if (j.is_number_float() && !std::isfinite(j.get<double>()))
        throw std::runtime_error("non-finite number at " + path);
    if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it) check_finite(it.value(), path + "." + it.key());
    if (j.is_array())
        for (size_t i = 0; i < j.size(); ++i) check_finite(j[i], path + "[" + std::to_string(i) + "]");
}

json counts_json(const Model& m) {
    const ModelConfig& c = m.config;
    return {{"model_type", c.family == Family::Explicit ? "explicit" : c.model_type},
            {"params_total", m.params.total},
            {"params_active", m.params.active},
            {"params_total_text", params_text(m.params.total)},
            {"params_active_text", params_text(m.params.active)},
            {"params_embeddings", m.params.embeddings},
            {"is_moe", c.is_moe()},
            {"experts", c.experts},
            {"experts_per_token", c.experts_per_token},
            {"layers", c.layers},
            {"hidden_size", c.hidden},
            {"heads", c.heads},
            {"kv_heads", c.kv_heads},
            {"vocab_size", c.vocab},
            {"mla", c.is_mla()}};
}

json job_json(const Job& job) {
    return {{"mode", mode_name(job.mode)}, {"dtype", job.dtype}, {"optimizer", optimizer_name(job.optimizer)},
            {"batch", job.batch}, {"seq", job.seq}, {"checkpointing", checkpointing_name(job.checkpointing)},
            {"flash_attention", job.flash_attention}, {"kv_dtype", job.kv_dtype}, {"lora_rank", job.lora_rank},
            {"lora_targets", job.lora_targets}, {"adapter_dtype", job.adapter_dtype},
            {"master_weights", job.master_weights}, {"gpus", job.gpus}, {"tp", job.tp}, {"pp", job.pp},
            {"zero", job.zero}, {"overhead_gb", job.overhead_gb}, {"fragmentation", job.fragmentation}};
}

std::string required_string(const json& entry, const char* key, const std::string& where) {
    auto it = entry.find(key);
    if (it == entry.end() || !it->is_string() || it->get<std::string>().empty())
        throw InputError(where + "." + key, "missing (a non-empty string)");
    return it->get<std::string>();
}

}  // namespace

std::vector<ModelEntry> parse_models(const std::string& text) {
    json root = parse_json_text(text, "models.json");
    if (!root.is_object() || !root.contains("models") || !root["models"].is_array())
        throw InputError("models.json", "must be an object with a \"models\" list");
    std::vector<ModelEntry> models;
    for (size_t i = 0; i < root["models"].size(); ++i) {
        const json& entry = root["models"][i];
        const std::string where = "models[" + std::to_string(i) + "]";
        if (!entry.is_object()) throw InputError(where, "must be an object");
        ModelEntry m;
        m.id = required_string(entry, "id", where);
        m.name = required_string(entry, "name", where);
        m.hf_id = entry.value("hf_id", "");
        m.source = entry.value("source", "");
        m.published_params = entry.value("published_params", 0.0);
        if (!entry.contains("config") || !entry["config"].is_object())
            throw InputError(where + ".config", "missing (a config.json object)");
        m.config = entry["config"];
        models.push_back(std::move(m));
    }
    return models;
}

const ModelEntry& find_model(const std::vector<ModelEntry>& models, const std::string& id) {
    for (const auto& m : models)
        if (m.id == id) return m;
    std::string known;
    for (const auto& m : models) known += (known.empty() ? "" : ", ") + m.id;
    throw InputError("model", "unknown model '" + id + "'; known: " + known);
}

json estimate_json(const Model& model, const Job& job, const Estimate& e) {
    // Besides raw numbers, every value the page shows is given as text here,
    // so the page does no arithmetic of its own.
    const double total = e.breakdown.total();
    json terms = json::array();
    for (int t = 0; t < kTermCount; ++t)
        terms.push_back({{"key", term_key(t)}, {"label", term_label(t)}, {"bytes", e.breakdown.bytes[t]},
                         {"text", gb_text(e.breakdown.bytes[t])}, {"share", e.breakdown.bytes[t] / total},
                         {"why", e.breakdown.why[t]}});
    json fits = json::array();
    for (const auto& f : e.fits)
        fits.push_back({{"id", f.id}, {"name", f.name}, {"capacity_bytes", f.capacity_bytes},
                        {"capacity_text", capacity_text(f.capacity_bytes)}, {"fits_as_configured", f.fits_as_configured},
                        {"gpus_needed", f.gpus_needed}});
    json out = {
        {"ok", true},
        {"model", counts_json(model)},
        {"job", job_json(job)},
        {"layout", {{"gpus", e.layout.gpus}, {"dp", e.layout.dp}, {"tp", e.layout.tp}, {"pp", e.layout.pp},
                    {"zero", e.layout.zero}}},
        {"trainable_params", e.trainable_params},
        {"trainable_text", params_text(e.trainable_params)},
        {"weight_format", e.weight_format_label},
        {"terms", terms},
        {"total_bytes", total},
        {"total_text", gb_text(total)},
        {"total_all_gpus_bytes", total * static_cast<double>(e.layout.gpus)},
        {"total_all_gpus_text", gb_text(total * static_cast<double>(e.layout.gpus))},
        {"weights_reference_bytes", e.weights_reference_bytes},
        {"weights_reference_text", gb_text(e.weights_reference_bytes)},
        {"ratio_to_weights", e.ratio_to_weights},
        {"ratio_text", printf_text("%.1f×", e.ratio_to_weights)},
        {"notes", e.notes},
        {"fits", fits},
    };
    check_finite(out, "estimate");
    return out;
}

std::string estimate_request(const std::string& config_json, const std::string& job_json) {
    return guarded([&] {
        const Model model = prepare_model(parse_config_text(config_json));
        const Job job = parse_job(parse_json_text(job_json, "job"));
        return estimate_json(model, job, estimate(model, job));
    });
}

std::string inspect_config(const std::string& config_json) {
    return guarded([&] {
        const Model model = prepare_model(parse_config_text(config_json));
        return json{{"ok", true}, {"model", counts_json(model)}};
    });
}

std::string models_summary(const std::string& models_json) {
    return guarded([&] {
        json list = json::array();
        for (const auto& entry : parse_models(models_json)) {
            const Model model = prepare_model(parse_config(entry.config));
            list.push_back({{"id", entry.id}, {"name", entry.name}, {"hf_id", entry.hf_id},
                            {"params_total", model.params.total}, {"params_active", model.params.active},
                            {"params_total_text", params_text(model.params.total)},
                            {"params_active_text", params_text(model.params.active)},
                            {"is_moe", model.config.is_moe()}, {"config", entry.config}});
        }
        return json{{"ok", true}, {"models", list}};
    });
}

std::string gpus_json() {
    json list = json::array();
    for (const auto& g : gpu_catalog())
        list.push_back({{"id", g.id}, {"name", g.name}, {"capacity_bytes", gpu_bytes(g)},
                        {"capacity_text", capacity_text(gpu_bytes(g))}});
    return list.dump();
}

std::string options_json() {
    json formats = json::array();
    for (const NumberFormat& f : all_formats())
        formats.push_back({{"id", f.name}, {"label", f.label}, {"bits", f.bits}, {"trainable", f.trainable}});
    return json{{"defaults", job_json(Job{})},
                {"modes", {"inference", "train", "lora", "qlora"}},
                {"dtypes", formats},
                {"kv_dtypes", {"auto", "fp32", "fp16", "bf16", "fp8", "int8"}},
                {"optimizers", {"adamw", "sgd", "sgd_momentum", "adam_8bit", "adafactor"}},
                {"checkpointing", {"none", "selective", "full"}}}
        .dump();
}

}  // namespace vramcalc
