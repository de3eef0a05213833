// models.json: its entries, the page's summary of them and finding one by what people type.
#include "api/catalog.hpp"

#include <nlohmann/json.hpp>

#include "text/errors.hpp"
#include "text/guarded.hpp"
#include "text/json_text.hpp"
#include "text/json_writer.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

std::string required_string(const json& entry, const char* key, const std::string& where) {
    auto it = entry.find(key);
    if (it == entry.end() || !it->is_string() || it->get<std::string>().empty())
        throw InputError(where + "." + key, "missing (a non-empty string)");
    return it->get<std::string>();
}

// The catalog use_catalog was given (the page's path; the CLI reads its own), and how many times it was given.
thread_local std::vector<ModelEntry> catalog;
thread_local uint64_t catalog_generation = 0;

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
        m.hf_id = optional_text(entry, "hf_id", where + ".hf_id");
        m.source = optional_text(entry, "source", where + ".source");
        m.family = optional_text(entry, "family", where + ".family");
        m.license = optional_text(entry, "license", where + ".license");
        m.modality = optional_text(entry, "modality", where + ".modality");
        m.released = optional_text(entry, "released", where + ".released");
        if (entry.contains("published_params") && !entry["published_params"].is_null())
            m.published_params = number_field(entry["published_params"], where + ".published_params", 0, 1e15);
        if (!entry.contains("config") || !entry["config"].is_object())
            throw InputError(where + ".config", "missing (a config.json object)");
        m.config = entry["config"];
        models.push_back(std::move(m));
    }
    return models;
}

// An exact id first; then an alias or Hub id that names one model exactly (the CLI's --model and
// the widget's model attribute take "meta-llama/Llama-3.1-8B-Instruct" or "llama3").
const ModelEntry& find_model(const std::vector<ModelEntry>& models, const std::string& id) {
    for (const auto& m : models)
        if (m.id == id) return m;
    if (const ModelEntry* m = resolve_model(models, id)) return *m;
    throw InputError("model", unknown_model_message(models, id));
}

std::string unknown_model_message(const std::vector<ModelEntry>& models, const std::string& id) {
    const std::vector<std::string> near = did_you_mean(models, id);
    std::string list;
    for (size_t i = 0; i < near.size(); ++i)
        list += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + near[i];
    return "unknown model '" + short_text(id) + "'" + (list.empty() ? "" : "; did you mean " + list + "?");
}

std::string models_summary(const std::string& models_json) {
    return guarded([&] {
        JsonWriter w;
        w.begin_object().field("ok", true).key("models").begin_array();
        for (const auto& entry : parse_models(models_json)) {
            const Model model = prepare_model(parse_config(entry.config));
            w.begin_object().field("id", entry.id).field("name", entry.name).field("hf_id", entry.hf_id);
            w.field("params_total", model.params.total).field("params_active", model.params.active);
            w.field("params_total_text", params_text(model.params.total));
            w.field("params_active_text", params_text(model.params.active));
            w.field("is_moe", model.config.is_moe());
            // Issue 35's catalog fields, so the page's catalog (web/models.json) lists them for use_catalog.
            w.field("family", entry.family).field("license", entry.license).field("modality", entry.modality);
            w.field("released", entry.released).key("config").raw(entry.config.dump()).end_object();
        }
        return w.end_array().end_object().str();
    });
}

std::string use_catalog(const std::string& models_json) {
    return guarded([&] {
        // A summary (web/models.json, written by `vramcalc --list --json`) reads like the catalog.
        std::vector<ModelEntry> models = parse_models(models_json);
        catalog = std::move(models);
        ++catalog_generation;
        // Job fields that name a model (speculative_model, machine_jobs[i].model) find it here (issue 36).
        set_model_resolver([](const json& ref, const std::string& field) {
            const std::string id = ref.get<std::string>();
            const ModelEntry* entry = nullptr;
            for (const ModelEntry& m : catalog)
                if (m.id == id) entry = &m;
            if (!entry) entry = resolve_model(catalog, id);
            if (!entry) throw InputError(field, unknown_model_message(catalog, id));
            return std::make_shared<const Model>(prepare_model(parse_config(entry->config)));
        });
        JsonWriter w;
        return w.begin_object().field("ok", true).field("count", static_cast<int64_t>(catalog.size())).end_object().str();
    });
}

const std::vector<ModelEntry>& current_catalog() { return catalog; }
uint64_t current_catalog_generation() { return catalog_generation; }

std::string search_catalog(const std::string& query) {
    return guarded([&] {
        if (query.size() > kMaxModelQuery)
            throw InputError("search.query", "is longer than " + std::to_string(kMaxModelQuery) + " characters");
        const std::vector<SearchHit> hits = search_models(catalog, query);
        JsonWriter w;
        w.begin_object().field("ok", true).field("query", bounded_text(query, 200));
        w.field("count", static_cast<int64_t>(hits.size())).key("models").begin_array();
        for (const SearchHit& h : hits)
            w.begin_object().field("id", h.entry->id).field("name", h.entry->name).field("hf_id", h.entry->hf_id)
                .field("how", h.how).end_object();
        return w.end_array().end_object().str();
    });
}

std::string lookup_model(const std::string& id) {
    return guarded([&] {
        const ModelEntry& m = find_model(catalog, id);
        JsonWriter w;
        return w.begin_object().field("ok", true).field("id", m.id).field("name", m.name).field("hf_id", m.hf_id)
            .field("how", m.id == id ? "id" : "resolved").end_object().str();
    });
}

}  // namespace vramcalc
