// vramcalc command line: estimate GPU memory for a model and a job.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "api/answer.hpp"
#include "api/api.hpp"
#include "api/catalog.hpp"
#include "api/intents.hpp"
#include "api/job_text.hpp"
#include "api/what_fits_json.hpp"
#include "checkpoint/checkpoint.hpp"
#include "cluster/cluster.hpp"
#include "answers/inverse.hpp"
#include "text/errors.hpp"
#include "text/json_text.hpp"
#include "answers/report.hpp"
#include "cluster/report.hpp"
#include "cli_usage.hpp"

using nlohmann::json;
using namespace vramcalc;

namespace {


// Reads at most kMaxJsonBytes: a huge file or /dev/zero gives the size
// error after 8 MB instead of running out of memory.
std::string read_file(const std::string& path, const std::string& field) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(field, "cannot read file '" + short_text(path) + "'");
    std::string text;
    char chunk[65536];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, static_cast<size_t>(in.gcount()));
        if (text.size() > kMaxJsonBytes) throw_too_large(field);
    }
    if (in.bad()) throw InputError(field, "cannot read file '" + short_text(path) + "'");
    return text;
}

// Only the metadata of a checkpoint: as many leading bytes as its first 8 say
// the core needs (core/checkpoint.hpp checkpoint_bytes_needed).
std::string read_checkpoint_header(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("checkpoint", "cannot read file '" + short_text(path) + "'");
    std::string bytes(8, '\0');
    in.read(&bytes[0], 8);
    bytes.resize(static_cast<size_t>(in.gcount()));
    const size_t want = checkpoint_bytes_needed(bytes);
    std::string chunk(65536, '\0');
    while (bytes.size() < want && in) {
        in.read(&chunk[0], static_cast<std::streamsize>(std::min(chunk.size(), want - bytes.size())));
        bytes.append(chunk.data(), static_cast<size_t>(in.gcount()));
    }
    return bytes;
}

// argv holds whatever bytes the shell passed; JSON and error texts need UTF-8.
std::string utf8_argument(const std::string& text, const std::string& field) {
    if (!is_utf8(text)) throw InputError(field, "is not valid UTF-8 text: '" + short_text(text) + "'");
    return text;
}

// A flag's field name: kv-dtype is job.kv_dtype.
std::string underscored(std::string name) {
    for (char& ch : name)
        if (ch == '-') ch = '_';
    return name;
}

std::string default_models_path() {
    if (const char* env = std::getenv("VRAMCALC_MODELS")) return env;
    std::ifstream here("models.json");
    if (here) return "models.json";
    return VRAMCALC_DEFAULT_MODELS;
}

int run(int argc, char** argv) {
    std::string model_id = "llama-3-8b", config_path, params, models_path = default_models_path();
    bool as_json = false, list = false, plan = false, list_gpus = false, gpu_given = false, bake = false;
    bool ladder = false, intents_only = false, search_given = false, what_fits = false;
    json fits = {{"filters", json::object()}};  // --what-fits: the intent, the filters and the order
    std::string search, intent, fp8_recipe;
    json cluster_fields = json::object();
    std::string question, checkpoint_path;
    json job_fields = json::object();
    // Job and cluster flags as typed, read by the one value parser (api/job_text.hpp) by each field's kind.
    std::vector<NamedText> job_flags, cluster_flags;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = utf8_argument(argv[i], "arguments");
        // File paths are bytes to the OS and may be any; every other value
        // goes into JSON and must be UTF-8.
        auto path = [&](const std::string& field) -> std::string {
            if (i + 1 >= argc) throw InputError(field, "missing value after " + arg);
            return argv[++i];
        };
        auto value = [&](const std::string& field) { return utf8_argument(path(field), field); };
        if (arg == "--help" || arg == "-h") {
            std::cout << kUsage;
            return 0;
        } else if (arg == "--json") as_json = true;
        else if (arg == "--bake") bake = true;
        else if (arg == "--ladder") ladder = true;
        else if (arg == "--what-fits") what_fits = true;
        else if (arg == "--intent") intent = value("intent"), fits["intent"] = intent;  // the question's, or the list's
        else if (arg == "--sort") fits["sort"] = value("sort");
        else if (arg == "--runnable") fits["filters"]["runnable"] = true;
        else if (arg == "--family" || arg == "--size" || arg == "--modality" || arg == "--license") {
            const std::string name = arg.substr(2), text = value("filters." + name);
            json names = json::array();  // comma-separated: --family "Llama 3,Qwen3"
            for (size_t at = 0, comma; at <= text.size(); at = comma + 1) {
                comma = std::min(text.find(',', at), text.size());
                names.push_back(text.substr(at, comma - at));
            }
            fits["filters"][name] = names;
        } else if (arg == "--moe" || arg == "--min-context" || arg == "--min-tps") {
            const std::string name = underscored(arg.substr(2));
            fits["filters"][name] = value_from_text(value("filters." + name), name == "moe" ? ValueKind::Boolean : ValueKind::Number);
        }
        else if (arg == "--intents") intents_only = true;
        else if (arg == "--search") search = value("search.query"), search_given = true;
        else if (arg == "--fp8-recipe") fp8_recipe = value("fp8");
        else if (arg == "--list") list = true;
        else if (arg == "--solve") question = value("question");
        else if (arg == "--model") model_id = value("model");
        else if (arg == "--config") config_path = path("config");
        else if (arg == "--params") params = value("config.num_parameters");
        else if (arg == "--checkpoint") checkpoint_path = path("checkpoint");
        else if (arg == "--models") models_path = path("models.json");
        else if (arg == "--job") job_fields = parse_json_text(read_file(path("job"), "job"), "job");
        else if (arg == "--flash" || arg == "--no-flash") job_flags.push_back({"flash-attention", arg == "--flash" ? "true" : "false"});
        else if (arg == "--master-weights" || arg == "--no-master-weights")
            job_flags.push_back({"master-weights", arg == "--master-weights" ? "true" : "false"});
        else if (arg == "--plan") plan = true;
        else if (arg == "--list-gpus") list_gpus = true;
        else if (arg == "--gpu") {
            // The GPU serves both the planner and the serving engines' pools (job.gpu).
            gpu_given = true;
            const std::string gpu = value("cluster.gpu");
            job_flags.push_back({"gpu", gpu});
            cluster_flags.push_back({"gpu", gpu});
        }
        else if (arg == "--fabric") plan = true, cluster_flags.push_back({"fabric", value("cluster.fabric")});
        else if (arg == "--cluster") plan = true, cluster_fields = parse_json_text(read_file(path("cluster"), "cluster"), "cluster");
        else if (arg.rfind("--cluster-", 0) == 0 && arg.size() > 10) {
            plan = true;
            const std::string name = arg.substr(10);
            cluster_flags.push_back({name, value("cluster." + underscored(name))});
        }
        else if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
            const std::string name = arg.substr(2);
            job_flags.push_back({name, value("job." + underscored(name))});
        } else {
            throw InputError("arguments", "unexpected '" + short_text(arg) + "' (see --help)");
        }
    }
    if (!job_fields.is_object()) throw InputError("job", "the --job file must hold a JSON object");
    job_fields.update(job_from_text(job_flags, TextSource::Flag));  // flags override the --job file's fields
    if (what_fits) {
        // "What can I run?" (issue 35, docs/what-fits.md): the whole catalog on this machine, plus --config.
        fits["job"] = job_fields;
        if (!config_path.empty()) fits["configs"] = json::array({{{"name", config_path}, {"config", read_file(config_path, "config")}}});
        const json used = json::parse(use_catalog(read_file(models_path, "models.json")));
        if (!used.value("ok", false)) throw InputError("models.json", used["error"].value("message", "not a catalog"));
        const std::string answer = what_fits_request(fits.dump());
        const json parsed = json::parse(answer);
        if (!parsed.value("ok", false)) {  // the answer's message already starts with its field
            std::cerr << "vramcalc: error: " << parsed["error"]["message"].get<std::string>() << "\n";
            return 2;
        }
        // No machine to size against is bad input, said as one error line (the JSON answer says it too).
        if (!parsed["empty"].is_null() && parsed["empty"].value("field", "") != "filters") {
            std::cerr << "vramcalc: error: " << parsed["empty"].value("field", "") << ": " << parsed["empty"].value("message", "") << "\n";
            return 2;
        }
        std::cout << (as_json ? parsed.dump(2) + "\n" : what_fits_table(answer));
        return 0;
    }
    // --gpu alone asks the planner, unless the job names a serving engine or a question.
    const bool planner_named = plan;  // --plan or a cluster flag: the planner's own error is the command's
    // A post-training job (mode grpo, dpo, ...) or several jobs on one machine answer their own question.
    PostMode post_mode = PostMode::None;
    if (job_fields.contains("mode") && job_fields["mode"].is_string()) post_mode_named(job_fields["mode"].get<std::string>(), post_mode);
    if (gpu_given && question.empty() && !job_fields.contains("engine") && post_mode == PostMode::None &&
        !job_fields.contains("machine_jobs"))
        plan = true;
    json cluster_given = cluster_from_text(cluster_flags, TextSource::Flag);
    if (!plan) cluster_given.erase("gpu");

    if (intents_only) {
        std::cout << json::parse(intents_json()).dump(2) << "\n";
        return 0;
    }
    if (search_given) {
        const std::string answer = (use_catalog(read_file(models_path, "models.json")), search_catalog(search));
        const json parsed = json::parse(answer);
        if (!parsed.value("ok", false)) {
            std::cerr << "vramcalc: error: " << parsed["error"]["message"].get<std::string>() << "\n";
            return 2;
        }
        std::cout << parsed.dump(2) << "\n";
        return 0;
    }
    if (list_gpus) {
        std::cout << format_gpu_list();
        return 0;
    }
    if (list && as_json) {
        // The page's catalog (web/models.json, written by scripts/build.sh): each model with
        // its config and parameter counts, so the page does not count them again on load.
        const std::string answer = models_summary(read_file(models_path, "models.json"));
        const json parsed = json::parse(answer);
        // A bad catalog is one error line and status 2, as for any input.
        if (!parsed.value("ok", false)) {
            std::cerr << "vramcalc: error: " << parsed["error"].value("message", "models.json: not a catalog") << "\n";
            return 2;
        }
        std::cout << answer << "\n";
        return 0;
    }
    if (list) {
        for (const auto& m : parse_models(read_file(models_path, "models.json")))
            std::cout << m.id << "\t" << m.name << "\n";
        return 0;
    }

    json config;
    std::string name, model_name;
    if (!params.empty()) {
        json count = value_from_text(params, ValueKind::Number);
        config = config_path.empty() ? json::object() : parse_json_text(read_file(config_path, "config"), "config");
        if (!config.is_object()) throw InputError("config", "must be a JSON object like a Hugging Face config.json");
        config["num_parameters"] = count;
        name = "explicit " + params + " parameters";
    } else if (!config_path.empty()) {
        config = parse_json_text(read_file(config_path, "config"), "config");
        name = config_path;
    } else {
        const auto models = parse_models(read_file(models_path, "models.json"));
        const ModelEntry& entry = find_model(models, model_id);
        config = entry.config;
        model_name = entry.name;
        name = entry.name + (entry.hf_id.empty() ? "" : " (" + entry.hf_id + ")");
        // The text report's command names the model by its Hub id (a GGUF file named after it for llama.cpp /
        // Ollama); --json answers as the page does, which gives model_id itself.
        if (!as_json && !bake && !job_fields.contains("model_id")) job_fields["model_id"] = entry.hf_id.empty() ? entry.id : entry.hf_id;
    }

    // Job fields that name other models (speculative_model, machine_jobs) find them in the catalog.
    if (job_fields.contains("speculative_model") || job_fields.contains("machine_jobs")) {
        const json answer = json::parse(use_catalog(read_file(models_path, "models.json")));
        if (!answer.value("ok", false)) throw InputError("models.json", answer["error"].value("message", "not a catalog"));
    }
    Model model = prepare_model(parse_config(config));
    if (!checkpoint_path.empty()) attach_checkpoint(model, read_checkpoint(read_checkpoint_header(checkpoint_path)));
    // The job is read with the question (an intent's fields under the user's), not alone here: a CPU-only machine
    // with --intent run_locally is valid only with the intent's llama.cpp.
    if (ladder) {
        const json parsed = json::parse(ladder_for(model, job_fields.dump()));
        if (!parsed.value("ok", false)) {  // the answer's message already starts with its field
            std::cerr << "vramcalc: error: " << parsed["error"]["message"].get<std::string>() << "\n";
            return 2;
        }
        std::cout << parsed.dump(2) << "\n";
        return 0;
    }
    if (bake) {
        // The page's first paint: the head of the answer to the default question (its counterpart inside), from
        // the same core the wasm runs.
        const json asked = {{"model_name", model_name}, {"job", job_fields}, {"parts", {"head"}}};
        const std::string text = answer_for(model, asked.dump());
        const json head = json::parse(text);
        if (!head.value("ok", false)) {  // the answer's message already starts with its field
            std::cerr << "vramcalc: error: " << head["error"].value("message", "refused") << "\n";
            return 2;
        }
        std::cout << "{\"ok\":true,\"model\":" << json(model_id).dump() << ",\"job\":" << job_fields.dump() << ",\"estimate\":" << text
                  << ",\"counterpart\":" << head["counterpart"].dump() << "}\n";
        return 0;
    }
    if (!question.empty()) {
        const std::string answer = solve_for(model, job_fields.dump(), question);
        const json parsed = json::parse(answer);
        if (!parsed.value("ok", false)) {  // the answer's message already starts with its field
            std::cerr << "vramcalc: error: " << parsed["error"]["message"].get<std::string>() << "\n";
            return 2;
        }
        std::cout << parsed.dump(2) << "\n";
        return 0;
    }
    // The one answer (docs/answer.md), as the page and the widget get it: the same question, in JSON or as text.
    if (!cluster_fields.is_object()) throw InputError("cluster", "the --cluster file must hold a JSON object");
    cluster_fields.update(cluster_given);
    json asked = {{"model_name", model_name}, {"job", job_fields}, {"cluster", cluster_fields}};
    if (!intent.empty()) asked["intent"] = intent;
    if (!fp8_recipe.empty()) asked["fp8"] = fp8_recipe;
    if (!as_json) {
        // The planner asked for by name that cannot answer: the memory estimate still prints, then its error.
        std::string planner_error;
        std::cout << answer_text(model, asked.dump(), name, planner_named ? Planner::Named : plan ? Planner::Shown : Planner::None,
                                 &planner_error);
        if (planner_error.empty()) return 0;
        std::cerr << "vramcalc: error: " << planner_error << "\n";
        return 2;
    }
    const json answer = json::parse(answer_for(model, asked.dump()));
    if (!answer.value("ok", false)) {
        std::cerr << "vramcalc: error: " << answer["error"]["message"].get<std::string>() << "\n";
        return 2;
    }
    // The planner asked for by name (--plan, a cluster flag): its own error is the command's.
    if (planner_named && !answer["planner"].value("ok", false)) {
        std::cerr << "vramcalc: error: " << answer["planner"]["error"]["message"].get<std::string>() << "\n";
        return 2;
    }
    std::cout << answer.dump(2) << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const InputError& e) {
        std::cerr << "vramcalc: error: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "vramcalc: internal error: " << e.what() << "\n";
        return 3;
    }
}
