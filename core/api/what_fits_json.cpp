// "What can I run?" as JSON: the request read once (the intent's job fields under the user's, the filters,
// the order, pasted configs), the catalog's models prepared once per catalog, the list written out.
#include "api/what_fits_json.hpp"

#include <memory>
#include <nlohmann/json.hpp>

#include "api/api.hpp"
#include "api/catalog.hpp"
#include "job/intents.hpp"
#include "machine/machine.hpp"
#include "serving/serving.hpp"
#include "text/guarded.hpp"
#include "text/json_text.hpp"
#include "text/units.hpp"
#include "whatfits/what_fits.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

// The chat list's context when the job gives none: 8,192 tokens, a conversation with room for a long answer or
// a pasted document; twice llama.cpp's and Ollama's 4,096 (common/common.h; Ollama under 23 GiB of VRAM), and
// never a model's trained maximum (llama.cpp -c 0), which would size a 128K model for 128K. Serving and
// fine-tuning take their intents' (job/intents.cpp: 8,192 per user; Unsloth's max_seq_length 2,048).
constexpr int64_t kChatContext = 8192;
const char* const kIntentIds[] = {"run_locally", "serve", "fine_tune"};  // job/intents.cpp, by FitIntent

// The catalog's models, prepared once for each catalog use_catalog is given (the page asks again on every
// change of the machine; each prepared model keeps its GGUF sizes per format, model/model.hpp).
struct Prepared {
    uint64_t generation = ~uint64_t{0};
    std::vector<ListedModel> models;
};
thread_local Prepared prepared;

const std::vector<ListedModel>& catalog_models() {
    if (prepared.generation == current_catalog_generation()) return prepared.models;
    prepared.models.clear();
    for (const ModelEntry& e : current_catalog()) {
        ListedModel m;
        m.id = e.id, m.name = e.name, m.hf_id = e.hf_id, m.family = e.family, m.license = e.license;
        m.modality = e.modality, m.released = e.released;
        try {
            m.model = std::make_shared<const Model>(prepare_model(parse_config(e.config)));
        } catch (const InputError& err) {
            m.error_field = err.field(), m.error = err.what();
        }
        prepared.models.push_back(std::move(m));
    }
    prepared.generation = current_catalog_generation();
    return prepared.models;
}

std::vector<std::string> names_field(const json& v, const std::string& field) {
    std::vector<std::string> out;
    if (v.is_string()) out.push_back(text_field(v, field));
    else if (v.is_array()) {
        if (v.size() > 64) throw InputError(field, "lists at most 64 names, got " + std::to_string(v.size()));
        for (size_t i = 0; i < v.size(); ++i) out.push_back(text_field(v[i], field + "[" + std::to_string(i) + "]"));
    }
    else throw InputError(field, "must be a name or a list of names");
    return out;
}

FitFilters read_filters(const json& f) {
    FitFilters out;
    if (f.is_null()) return out;
    if (!f.is_object()) throw InputError("filters", "must be an object");
    for (auto it = f.begin(); it != f.end(); ++it) {
        const std::string key = it.key(), field = "filters." + key;
        const json& v = it.value();
        if (key == "family") out.families = names_field(v, field);
        else if (key == "size") {
            out.sizes = names_field(v, field);
            for (const std::string& s : out.sizes) {
                bool known = false;
                std::string all;
                for (const char* n : size_class_names()) known |= s == n, all += (all.empty() ? "" : ", ") + std::string(n);
                if (!known) throw InputError(field, "must be one of " + all + ", got '" + short_text(s) + "'");
            }
        } else if (key == "modality") out.modalities = names_field(v, field);
        else if (key == "license" || key == "licence") out.licenses = names_field(v, field);
        else if (key == "moe") out.moe = bool_field(v, field) ? 1 : 0;
        else if (key == "min_context") out.min_context = whole_field(v, field, 0, 100'000'000);
        else if (key == "min_tps") out.min_tps = number_field(v, field, 0, 1e7);
        else if (key == "runnable") out.runnable_only = bool_field(v, field);
        else throw InputError(field, "unknown filter; known: family, size, moe, modality, license, min_context, min_tps, runnable");
    }
    return out;
}

// The intent's fields under the user's: the list sets the format (or the fine-tuning mode) and the context.
json job_fields(FitIntent intent, const json& user, int64_t& context, bool& given) {
    json base = json::object();
    for (const Intent& i : intents())
        if (std::string(i.id) == kIntentIds[static_cast<int>(intent)])
            for (const PresetField& f : i.job) {
                const std::string key = f.key;
                if (key == "dtype" || key == "seq" || (intent == FitIntent::Finetune && key == "mode")) {
                    if (key == "seq" && intent != FitIntent::Chat) context = json::parse(f.value).get<int64_t>();
                    continue;
                }
                base[key] = json::parse(f.value);
            }
    if (!user.is_object()) throw InputError("job", "must be an object of job fields (gpu, ram_gb, seq, ...)");
    if (intent != FitIntent::Finetune && user.contains("dtype"))
        throw InputError("job.dtype", "the list chooses each model's best format; leave dtype out (or ask about one model)");
    for (const char* key : {"seq", "num_ctx"})
        if (user.contains(key)) context = whole_field(user[key], std::string("job.") + key, 1, 100'000'000), given = true;
    base.update(user);
    base.erase("num_ctx");
    base["seq"] = context;
    // System RAM and no GPU: a machine without one.
    if (intent == FitIntent::Chat && !base.contains("gpu") && !base.contains("device_gb") && !base.contains("device_gib") &&
        (base.contains("ram_gb") || base.contains("ram_gib")))
        base["gpu"] = "cpu";
    return base;
}

FitRequest read_request(const json& req, json& base, std::vector<ListedModel>& pasted) {
    if (!req.is_object()) throw InputError("request", "must be an object: {\"intent\", \"job\", \"filters\", \"sort\", \"configs\"}");
    for (auto it = req.begin(); it != req.end(); ++it)
        if (it.key() != "intent" && it.key() != "job" && it.key() != "filters" && it.key() != "sort" && it.key() != "configs")
            throw InputError("request." + it.key(), "unknown field; known: intent, job, filters, sort, configs");
    FitRequest r;
    r.intent = req.contains("intent") ? fit_intent_named(text_field(req["intent"], "intent"), "intent") : FitIntent::Chat;
    r.context = kChatContext;
    base = job_fields(r.intent, req.contains("job") ? req["job"] : json::object(), r.context, r.context_given);
    if (r.intent == FitIntent::Finetune) {
        const json asked = base.contains("mode") ? base["mode"] : json();
        for (const char* mode : {"lora", "qlora"}) {
            if (!asked.is_null() && asked != mode) continue;
            json j = base;
            j["mode"] = mode;
            r.modes.push_back(parse_job(j));
        }
        if (r.modes.empty()) throw InputError("job.mode", "the fine-tuning list is of LoRA and QLoRA: mode lora or qlora, or leave it out");
        r.job = r.modes.front();
    } else {
        r.job = parse_job(base);
    }
    // The presets' texts are for one answer's output; every row copies the job several times.
    r.job.assumptions.clear();
    for (Job& j : r.modes) j.assumptions.clear();
    if (r.intent == FitIntent::Chat && !runs_locally(r.job))
        throw InputError("job.engine", "chat runs on your own machine: llamacpp, ollama or mlx (vLLM and SGLang serve: intent serve)");
    if (r.intent == FitIntent::Serve && r.job.engine != Engine::Vllm && r.job.engine != Engine::Sglang)
        throw InputError("job.engine", "serving is vLLM's or SGLang's: engine vllm or sglang (llama.cpp and Ollama: intent chat)");
    if (req.contains("filters")) r.filters = read_filters(req["filters"]);
    if (req.contains("sort")) r.sort = fit_sort_named(text_field(req["sort"], "sort"), "sort");
    if (req.contains("configs")) {
        const json& list = req["configs"];
        if (!list.is_array()) throw InputError("configs", "must be a list of {\"name\", \"config\"}");
        if (list.size() > 16) throw InputError("configs", "lists at most 16 pasted configs, got " + std::to_string(list.size()));
        for (size_t i = 0; i < list.size(); ++i) {
            const std::string where = "configs[" + std::to_string(i) + "]";
            const json& c = list[i];
            const std::string name = c.is_object() ? optional_text(c, "name", where + ".name", "config " + std::to_string(i + 1))
                                                   : "config " + std::to_string(i + 1);
            std::shared_ptr<const Model> model;
            std::string field, error;
            try {
                if (!c.is_object() || !c.contains("config")) throw InputError(where + ".config", "missing (a config.json object)");
                // A config object, or its text as pasted (read here, so its errors name it too).
                const json config = c["config"].is_string() ? parse_json_text(c["config"].get<std::string>(), where + ".config") : c["config"];
                model = std::make_shared<const Model>(prepare_model(parse_config(config)));
            } catch (const InputError& e) {
                field = e.field(), error = e.what();
            }
            ListedModel m = pasted_model(name, model);
            m.error_field = field, m.error = error.empty() ? "" : name + ": " + error;
            pasted.push_back(std::move(m));
        }
    }
    return r;
}

// The machine in words for the page's one Your-machine line: the GPUs with their count (the CLI's and the page's
// "2 × RTX 3090 24GB"), the system RAM when given, and what a chat list without it is capped by.
std::string machine_text(const MachinePools& m, FitIntent intent) {
    if (m.cpu_only) return "no GPU, " + m.ram_text;
    std::string text = (m.gpus > 1 ? std::to_string(m.gpus) + " × " : std::string()) + m.gpu_text;
    if (intent != FitIntent::Chat || m.unified) return text;
    return text + (m.ram_given ? " + " + m.ram_text : " (system RAM not given: only what runs whole on the GPU counts)");
}

// What each row was sized for, in words: the runtime and its load ("chat on llama.cpp …", "serving on vLLM: 16
// users × 8,192 tokens", "fine-tuning: LoRA, else QLoRA, at batch 2 × 2,048 tokens").
std::string intent_text(const FitRequest& r) {
    const std::string tokens = grouped_text(static_cast<double>(r.context)) + " tokens";
    const std::string batch = std::to_string(r.job.batch);
    if (r.intent == FitIntent::Chat) return std::string("chat on ") + (r.job.runtime_label ? r.job.runtime_label : "");
    if (r.intent == FitIntent::Serve)
        return std::string("serving on ") + (r.job.engine == Engine::Sglang ? "SGLang" : "vLLM") + ": " + batch +
               (r.job.batch == 1 ? " user × " : " users × ") + tokens;
    const bool both = r.modes.size() > 1;
    return std::string("fine-tuning: ") + (both ? "LoRA, else QLoRA" : r.job.mode == Mode::QLoRA ? "QLoRA" : "LoRA") +
           ", at batch " + batch + " × " + tokens;
}

void write_pool(JsonWriter& w, const char* key, const FitPool& p) {
    w.key(key).begin_object().field("known", p.known).field("need_bytes", p.need_bytes).field("have_bytes", p.have_bytes);
    w.field("headroom_bytes", p.headroom_bytes).field("headroom_share", p.headroom_share);
    w.field("need_text", gb_text(p.need_bytes)).field("headroom_text", p.known ? gb_text(p.headroom_bytes) + " free" : std::string());
    w.field("text", p.text).end_object();
}

// The request's job fields, each key with its value written once (every row's job is these and its own few).
struct BaseFields {
    std::vector<std::pair<std::string, std::string>> items;
    explicit BaseFields(const json& base) {
        for (auto it = base.begin(); it != base.end(); ++it) items.emplace_back(it.key(), it.value().dump());
    }
};

void write_row(JsonWriter& w, const FitRow& r, const BaseFields& base, FitIntent intent) {
    const ListedModel& m = *r.model;
    w.begin_object().field("id", m.id).field("name", m.name).field("hf_id", m.hf_id).field("family", m.family);
    w.field("license", m.license).field("modality", m.modality).field("released", m.released).field("pasted", m.pasted);
    w.field("size_class", r.size).field("params_total", r.params_total).field("params_active", r.params_active);
    w.field("params_text", params_text(r.params_total) + (r.moe ? " (" + params_text(r.params_active) + " active)" : std::string()));
    w.field("params_total_text", params_text(r.params_total)).field("params_active_text", params_text(r.params_active));
    w.field("moe", r.moe).field("trained_context", r.trained_context);
    w.field("fit", r.fit).field("fit_text", r.fit_text).field("runs", r.runs).field("status", r.status);
    w.field("symbol", r.symbol).field("verdict", r.verdict);
    if (std::string(r.fit) == "unsupported") {
        w.key("error").begin_object().field("field", r.error_field).field("message", r.error).end_object();
        w.end_object();
        return;
    }
    w.field("dtype", r.dtype).field("format", r.format_label);
    if (!r.mode.empty()) w.field("mode", r.mode);
    w.key("candidates").begin_array();
    for (const std::string& c : r.candidates) w.value(c);
    w.end_array();
    w.field("n_cpu_moe", r.n_cpu_moe).field("gpu_layers", r.gpu_layers).field("layers", r.layers).field("gpus", r.gpus);
    w.field("context", r.context).field("context_capped", r.context_capped);
    w.field("context_text", "at " + grouped_text(static_cast<double>(r.context)) + " tokens" +
                                (r.context_capped ? " (its trained context)" : ""));
    write_pool(w, "gpu", r.gpu);
    write_pool(w, "ram", r.ram);
    w.field("weights_bytes", r.weights_bytes).field("weights_text", gb_text(r.weights_bytes));
    w.key("speed").begin_object().field("known", r.speed_known);
    w.field("decode_tps", r.decode_tps).field("decode_low", r.decode_low).field("decode_high", r.decode_high);
    w.field("prefill_tps", r.prefill_tps).field("prefill_low", r.prefill_low).field("prefill_high", r.prefill_high);
    w.field("total_tps", r.total_tps).field("total_low", r.total_low).field("total_high", r.total_high);
    w.field("ttft_s", r.ttft_s).field("text", r.speed_text).end_object();
    w.field("command", r.command);
    // The single-model job this row answers: one click opens it with the same format, context and machine.
    const char* own = intent == FitIntent::Finetune ? "mode" : "dtype";
    w.key("job").begin_object();
    bool named = false;
    for (const auto& item : base.items) {
        if (item.first == "seq" || item.first == own) continue;
        named |= item.first == "model_id";
        w.key(item.first.c_str()).raw(item.second);
    }
    w.field(own, intent == FitIntent::Finetune ? r.mode : r.dtype).field("seq", r.context);
    if (!named) w.field("model_id", r.job.model_id);
    w.end_object().end_object();
}

std::string answer(const std::string& request_json) {
    const json req = parse_json_text(request_json, "request");
    json base;
    std::vector<ListedModel> models;
    FitRequest r = read_request(req, base, models);
    const UnitScope units(r.job.units);
    const std::vector<ListedModel>& catalog = catalog_models();
    // The catalog as kept, or a copy of it with the pasted configs after it.
    if (!models.empty()) models.insert(models.begin(), catalog.begin(), catalog.end());
    const FitList list = what_fits(models.empty() ? catalog : models, r);
    const MachinePools pools = machine_pools(r.job.machine, r.job.gpu, r.job.gpus, device_bytes(r.job));
    JsonWriter w;
    w.begin_object().field("ok", true).field("intent", fit_intent_name(r.intent)).field("units", unit_name(r.job.units));
    w.field("sort", fit_sort_name(r.sort)).field("context", r.context).field("context_given", r.context_given);
    w.field("context_text", "sized at " + grouped_text(static_cast<double>(r.context)) + " tokens" +
                                (r.context_given ? "" : " (the list's default; set seq for yours)") +
                                ", or at a model's trained context when that is shorter");
    w.field("runtime", r.job.runtime_label ? r.job.runtime_label : "").field("intent_text", intent_text(r));
    w.key("machine").begin_object().field("text", machine_text(pools, r.intent)).field("unified", pools.unified).field("cpu_only", pools.cpu_only);
    w.field("ram_given", pools.ram_given).field("gpus", pools.gpus).field("gpu_bytes", pools.gpu_bytes);
    w.field("ram_bytes", pools.ram_bytes).field("gpu_text", pools.gpu_text).field("ram_text", pools.ram_text).end_object();
    w.field("considered", list.considered).field("count", static_cast<int64_t>(list.rows.size())).field("runnable", list.runnable);
    w.key("filter_steps").begin_array();
    for (const std::string& s : list.filter_steps) w.value(s);
    w.end_array().key("empty");
    if (list.empty_reason.empty()) w.raw("null");
    else w.begin_object().field("field", list.empty_field).field("message", list.empty_reason).end_object();
    w.key("config_errors").begin_array();
    for (const ListedModel* m : list.failed)
        w.begin_object().field("name", m->name).field("field", m->error_field).field("message", m->error).end_object();
    w.end_array().key("rows").begin_array();
    const BaseFields fields(base);
    for (const FitRow& row : list.rows) write_row(w, row, fields, r.intent);
    return w.end_array().end_object().str();
}

}  // namespace

std::string what_fits_request(const std::string& request_json) {
    return guarded([&] { return answer(request_json); });
}

const std::string& what_fits_kept(const std::string& request_json) {
    thread_local std::string kept;
    kept = what_fits_request(request_json);
    return kept;
}

}  // namespace vramcalc
