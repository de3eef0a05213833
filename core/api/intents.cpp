#include "api/intents.hpp"

#include <nlohmann/json.hpp>

#include "answers/ladder.hpp"
#include "hardware/gpus.hpp"
#include "job/intents.hpp"
#include "serving/serving.hpp"
#include "text/guarded.hpp"
#include "text/json_text.hpp"
#include "text/json_writer.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

void write_fields(JsonWriter& w, const char* values, const char* sources, const std::vector<PresetField>& fields) {
    w.key(values).begin_object();
    for (const PresetField& f : fields) w.key(f.key).raw(f.value);
    w.end_object().key(sources).begin_object();
    for (const PresetField& f : fields) w.field(f.key, f.source);
    w.end_object();
}

}  // namespace

std::string intents_json() {
    JsonWriter w;
    w.begin_object().key("intents").begin_array();
    auto write = [&w](const Intent& i) {
        w.begin_object().field("id", i.id).field("label", i.label).field("question", i.question).field("view", i.view);
        w.field("recipe", i.recipe);
        write_fields(w, "job", "job_sources", i.job);
        // The preset follows the model: each variant's fields go over the intent's for its kind of model.
        w.key("variants").begin_array();
        for (const IntentVariant& v : i.variants) {
            w.begin_object().field("models", model_scale_name(v.scale)).field("recipe", v.recipe);
            write_fields(w, "job", "job_sources", v.job);
            w.end_object();
        }
        w.end_array();
        write_fields(w, "cluster", "cluster_sources", i.cluster);
        w.end_object();
    };
    for (const Intent& i : intents()) write(i);
    // Issue 36: the post-training entry point, listed apart (the page shows it after the four; docs/posttrain.md).
    w.end_array().key("post_train").begin_array();
    for (const Intent& i : posttrain_intents()) write(i);
    return w.end_array().end_object().str();
}

std::string ladder_for(const Model& model, const std::string& job_json) {
    return guarded([&] {
        nlohmann::json request = parse_json_text(job_json, "job");
        // The ladder is llama.cpp's: a job without an engine is asked as llama.cpp runs it.
        if (request.is_object() && (!request.contains("engine") || request["engine"] == "custom")) request["engine"] = "llamacpp";
        const Job job = parse_job(request);
        const std::vector<LadderRung> rungs = quant_ladder(model, job);
        const UnitScope units(job.units);
        JsonWriter w;
        w.begin_object().field("ok", true).field("units", unit_name(job.units));
        w.field("gpu", job.device_gib > 0 ? "GPU of " + capacity_text(device_bytes(job)) : job.gpu ? std::string(job.gpu->name) : std::string());
        w.field("gpus", job.gpus).key("rungs").begin_array();
        for (const LadderRung& r : rungs) {
            w.begin_object().field("dtype", r.dtype).field("label", r.label);
            w.field("file_bytes", r.file_bytes).field("file_text", gb_text(r.file_bytes));
            w.field("total_bytes", r.total_bytes).field("total_text", gb_text(r.total_bytes)).field("status", r.status);
            w.field("gpu_layers", r.gpu_layers).field("layers", r.layers);
            w.field("gpu_bytes", r.gpu_bytes).field("gpu_text", gb_text(r.gpu_bytes));
            w.field("cpu_bytes", r.cpu_bytes).field("cpu_text", gb_text(r.cpu_bytes)).field("text", r.text).end_object();
        }
        return w.end_array().end_object().str();
    });
}

std::string ladder_current(const std::string& job_json) {
    if (!current_model()) return current_model_error();
    return ladder_for(*current_model(), job_json);
}

}  // namespace vramcalc
