// The one answer's head (issue 33): the estimate of the job the question resolves to, and around it
// everything the page shows first, each written from that same estimate: the machine, the capacity
// line, the headline, the recipe, the two cards and the counterpart. The later parts: answer_parts.cpp.
#include "api/answer.hpp"

#include <cctype>

#include "api/answer_parts.hpp"
#include "api/colocation_json.hpp"
#include "api/question.hpp"
#include "answers/notes.hpp"
#include "answers/verdict.hpp"
#include "answers/report.hpp"
#include "cluster/cluster.hpp"
#include "cluster/report.hpp"
#include "hardware/gpus.hpp"
#include "job/engine_presets.hpp"
#include "job/presets.hpp"
#include "serving/serving.hpp"
#include "step/timeline.hpp"
#include "text/errors.hpp"
#include "text/guarded.hpp"
#include "text/json_text.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

// The same question in the other mode, for the second card: training's counterpart runs the model
// (inference of the same weights, lengths and GPUs); inference's trains it (full training, or QLoRA when
// the weights are quantized). Only the fields both modes read travel: a recipe's training fields
// (optimizer, checkpointing, framework) or an engine's serving fields say nothing about the other mode.
json counterpart_job(const json& job, const Job& parsed) {
    static const char* const kShared[] = {"seq", "batch", "encoder_seq", "head", "num_labels", "gpus", "tp", "pp", "gpu",
                                          "device_gb", "device_gib", "units", "recommend_from", "attention", "flash_attention"};
    json c = json::object();
    for (const char* key : kShared)
        if (job.contains(key)) c[key] = job[key];
    const bool quantized = !parsed.dtype_auto && !parsed.dtype->trainable;
    if (trains(parsed)) {
        c["mode"] = "inference";
        if (job.contains("dtype")) c["dtype"] = job["dtype"];
    } else {
        c["mode"] = quantized ? "qlora" : "train";
        if (job.contains("dtype") && !quantized) c["dtype"] = job["dtype"];
    }
    return c;
}

// The job as it is run: a local runtime's own context, -ngl and --n-cpu-moe (llama.cpp's --fit, Ollama's context
// tier capped at the model's), which the estimate's figures are of; the echo and the context warning say those,
// never the context asked before the runtime chose (Gemma 2 27B under Ollama: 262,144 asked, 8,192 run).
Job as_run(const Job& job, const Estimate& e) {
    if (!e.local.applies) return job;
    Job j = job;
    j.seq = e.context;
    j.n_gpu_layers = e.gpu_layers;
    if (!job.experts_on_cpu) j.n_cpu_moe = e.n_cpu_moe;
    return j;
}

bool pooled_view(const Estimate& e) { return e.serving_view.pooled; }
// What the headline says: under vLLM / SGLang what the users need, else the per-GPU total.
double headline_bytes(const Estimate& e) { return pooled_view(e) ? e.serving_view.need : e.breakdown.total(); }
std::string headline_scope(const Job& job, const Estimate& e) {
    const std::string gpus = e.layout.gpus > 1 ? "per GPU, on each of " + std::to_string(e.layout.gpus) + " GPUs" : "on one GPU";
    if (!pooled_view(e)) return gpus;
    return "for " + std::to_string(job.batch) + (job.batch == 1 ? " user × " : " users × ") + grouped_text(static_cast<double>(job.seq)) +
           " tokens, " + gpus;
}

// The machine asked about: its GPUs and (issue 32) its system RAM, said once; with several jobs sharing its
// GPU (machine_jobs, core/answers/colocation.cpp), their one verdict as `shared`.
void write_machine_part(JsonWriter& w, const Job& job, const Estimate& e) {
    const double capacity = device_bytes(job);
    const Machine& m = job.machine;
    const std::string name = gpu_name_of(job);
    w.key("machine").begin_object().field("given", capacity > 0 || m.cpu_only).field("gpu", job.device_gib > 0 ? "custom" : job.gpu ? job.gpu->id : "");
    w.field("gpu_name", name).field("gpus", m.cpu_only ? static_cast<int64_t>(0) : job.gpus).field("capacity_bytes", capacity);
    w.field("capacity_text", capacity > 0 ? capacity_text(capacity) : "");
    w.field("capacity_source", job.device_gib > 0 ? "as given" : job.gpu ? usable_source(*job.gpu) : "");
    w.field("cpu_only", m.cpu_only).field("ram_bytes", m.ram_bytes).field("ram_text", m.ram_bytes > 0 ? gb_text(m.ram_bytes) : "");
    const std::string ram = m.ram_bytes > 0 ? gb_text(m.ram_bytes) + " of system RAM" : "";
    std::string text = m.cpu_only ? "CPU only" + (ram.empty() ? std::string() : ", " + ram)
                       : capacity > 0 ? std::to_string(job.gpus) + " × " + name + ", " + capacity_text(capacity) + " usable each" +
                                            (ram.empty() ? std::string() : "; " + ram)
                                      : std::string("no GPU chosen");
    w.field("text", text);
    if (e.colocation.active) write_colocation(w.key("shared"), e.colocation);  // core/api/colocation_json.cpp
    w.end_object();
}

// The GPU's capacity, said once and as the GPU's; under an engine its budget and pool, as the engine's.
void write_capacity(JsonWriter& w, const Job& job, const Estimate& e) {
    const double capacity = device_bytes(job);
    w.key("capacity").begin_object();
    w.field("text", capacity > 0 ? gpu_name_of(job) + ": " + capacity_text(capacity) + " usable each (" +
                                       (job.device_gib > 0 ? std::string("as given") : std::string(usable_source(*job.gpu))) + ")."
                                 : std::string());
    w.field("engine_text", pooled_view(e) ? e.serving_view.engine_text : std::string()).end_object();
}

void write_headline(JsonWriter& w, const Job& job, const Estimate& e) {
    const double bytes = headline_bytes(e);
    w.key("headline").begin_object().field("kind", pooled_view(e) ? "need" : "total").field("total_bytes", bytes);
    w.field("total_text", gb_text(bytes)).field("scope_text", headline_scope(job, e));
    w.field("why", pooled_view(e) ? e.serving_view.need_why : std::string()).end_object();
}

const char* short_mode(Mode m) {
    return m == Mode::QLoRA ? "QLoRA" : m == Mode::LoRA ? "LoRA" : m == Mode::Train ? "Full training" : "Inference";
}

// Which recipe the figures are, in words, with the fine-tuning recipes people copy beside it for the
// same batch and lengths, their memory counted the same way ("QLoRA, Unsloth's notebooks: 7.56 GB · HF +
// PEFT: 9.81 GB").
void write_recipe(JsonWriter& w, const Model& model, const Query& q, const Job& job, const Estimate& e) {
    const std::string framework = framework_name(job.framework);
    std::string who = q.recipe;
    if (who.empty()) {
        if (trains(job)) who = job.framework == Framework::Custom ? "no framework preset (plain PyTorch defaults)"
                                                                  : std::string(preset_of(job.framework).label) + "'s defaults";
        else who = job.engine == Engine::Custom ? "no serving engine (a plain sum)" : std::string(engine_preset(job.engine).label) + "'s defaults";
    }
    // A post-training job: its mode and its policy ("GRPO of a LoRA policy"), not the policy's mode alone.
    const bool post = job.post.mode != PostMode::None;
    std::string mode = short_mode(job.mode);
    if (post) {
        mode = post_mode_name(job.post.mode);
        for (char& c : mode) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        mode += std::string(" of a ") + (job.mode == Mode::Train ? "fully trained" : short_mode(job.mode)) + " policy";
    }
    std::string text = mode + ", " + who + ": " + gb_text(headline_bytes(e));
    w.key("recipe").begin_object().field("intent", q.intent ? q.intent->id : "").field("intent_label", q.intent ? q.intent->label : "");
    w.field("name", who).field("framework", framework).field("framework_label", preset_of(job.framework).label);
    w.key("alternatives").begin_array();
    if (post || uses_adapters(job)) {
        for (const RecipeChoice& r : post ? posttrain_recipes() : fine_tune_recipes()) {
            if (framework == r.framework) continue;
            json alt = q.job;
            alt["framework"] = r.framework;
            // Memory counted the same way as the job's, so the figures compare.
            if (!alt.contains("report")) alt["report"] = memory_kind_name(job.report);
            if (!alt.contains("overhead_gb")) alt["overhead_gb"] = job.overhead_gb;
            try {
                const Job j = parse_job(alt);
                // The step's total, as the estimate counts it (a post-training step is its phases: run_step
                // routes it to core/step/posttrain_step.cpp), without the estimate's tables and searches.
                const double total = compute_breakdown(model, j).total();
                w.begin_object().field("framework", r.framework).field("label", r.label).field("total_bytes", total)
                    .field("total_text", gb_text(total)).end_object();
                text += std::string(" · ") + r.label + ": " + gb_text(total);
            } catch (const InputError&) {
                // A recipe that refuses this job (its preset's rules) is left out.
            }
        }
        text += post && generates(job.post) ? " (each with " + std::to_string(job.post.num_generations) + " completions of " +
                           grouped_text(static_cast<double>(job.post.max_completion_length)) + " tokens per prompt)"
                     : " (each at batch " + std::to_string(job.batch) + " × " + grouped_text(static_cast<double>(job.seq)) + " tokens)";
    }
    w.end_array().field("text", text);
    w.key("fields").begin_array();
    for (const RecipeField& f : q.recipe_fields)
        w.begin_object().field("key", f.key).field("label", f.label).field("value", f.value).field("source", f.source).end_object();
    w.end_array().key("adapted").begin_array();
    for (const std::string& a : q.adapted) w.value(a);
    w.end_array().field("fp8", q.fp8).end_object();
}

// Each card: a mode and its weights' format, the headline figure, what it is of and its verdict.
void write_card(JsonWriter& w, const Job& job, const Estimate& e, bool current) {
    w.begin_object().field("key", trains(job) ? "training" : "inference").field("mode", mode_name(job.mode));
    w.field("title", std::string(mode_title(job.mode)) + " · " + e.weight_format_label).field("current", current);
    w.field("total_bytes", headline_bytes(e)).field("total_text", gb_text(headline_bytes(e)));
    w.field("scope_text", headline_scope(job, e));
    w.field("text", std::string(e.verdict.status) == "none" ? e.verdict.text : headline_scope(job, e) + " · " + e.verdict.text);
    w.end_object();
}

void write_head(JsonWriter& w, const Model& model, const Query& q, const Job& job, const Estimate& e) {
    write_estimate(w, model, as_run(job, e), e, false);
    w.field("model_name", q.model_name);
    w.field("title", (q.model_name.empty() ? std::string() : q.model_name + " · ") + mode_title(job.mode) +
                         (job.engine != Engine::Custom ? std::string(" on ") + engine_preset(job.engine).label : std::string()));
    w.key("intent");
    if (q.intent) w.begin_object().field("id", q.intent->id).field("label", q.intent->label).field("view", q.intent->view).end_object();
    else w.raw("null");
    write_machine_part(w, job, e);
    write_capacity(w, job, e);
    write_headline(w, job, e);
    write_recipe(w, model, q, job, e);
    // The counterpart: the same question in the other mode; its error is its card's, not the answer's.
    const json other = counterpart_job(q.job, job);
    std::string counterpart;
    Job other_job;
    Estimate other_e;
    bool other_ok = false;
    try {
        other_job = parse_job(other);
        other_e = estimate(model, other_job);
        other_ok = true;
    } catch (const InputError& err) {
        counterpart = error_json(err.field(), err.what());
    }
    w.key("cards").begin_array();
    const bool inference_first = !trains(job);
    if (inference_first) write_card(w, job, e, true);
    if (other_ok) write_card(w, other_job, other_e, false);
    if (!inference_first) write_card(w, job, e, true);
    w.end_array();
    if (other_ok) {
        JsonWriter c;
        c.begin_object().field("ok", true);
        write_estimate(c, model, other_job, other_e);
        counterpart = c.end_object().str();
    }
    w.key("counterpart").raw(counterpart);
}

}  // namespace

std::string answer_for(const Model& model, const std::string& question_json) {
    return guarded([&] {
        const Query q = read_query(model, parse_json_text(question_json, "question"));
        const Job job = parse_job(q.job);
        const UnitScope units(job.units);
        JsonWriter w;
        w.begin_object().field("ok", true).field("schema", static_cast<int64_t>(kAnswerSchema));
        w.key("parts").begin_array();
        const std::vector<const char*> names = answer_part_names();
        for (size_t i = 0; i < names.size(); ++i)
            if (q.parts & (1u << i)) w.value(names[i]);
        w.end_array();
        // The estimate is computed once, for the head and for the parts that answer on the verdict's GPU.
        const bool needs_estimate = (q.parts & (kPartHead | kPartPlanner)) || ((q.parts & kPartWhatFits) && device_bytes(job) <= 0);
        const Estimate e = needs_estimate ? estimate(model, job) : Estimate{};
        if (q.parts & kPartHead) write_head(w, model, q, job, e);
        write_parts(w, model, q, job, needs_estimate ? &e : nullptr);
        return w.end_object().str();
    });
}

std::string answer_text(const Model& model, const std::string& question_json, const std::string& heading, Planner planner,
                        std::string* planner_error) {
    const Query q = read_query(model, parse_json_text(question_json, "question"));
    const Job job = parse_job(q.job);
    const UnitScope units(job.units);
    const Estimate e = estimate(model, job);
    std::string out = format_report(heading, as_run(job, e), e);
    // The answer's head as the page says it: the recipe, the engine's own view, the presets in force.
    JsonWriter w;
    w.begin_object();
    write_recipe(w, model, q, job, e);
    const json recipe = json::parse(w.end_object().str())["recipe"];
    out += "\nRecipe: " + recipe["text"].get<std::string>() + "\n";
    for (const std::string& a : q.adapted) out += "  " + a + "\n";
    if (pooled_view(e)) out += "Need: " + e.serving_view.need_why + "\n" + e.serving_view.engine_text + "\n";
    const std::vector<AssumptionLine> assumed = assumption_lines(job, e);
    out += "Assumptions (" + std::to_string(assumed.size()) + "):\n";
    for (const AssumptionLine& a : assumed) out += "  " + a.text + "\n";
    if (planner == Planner::None) return out;
    // As the answer's planner part: a post-training job and a machine without a GPU are not timed (answer_parts.cpp).
    if (job.post.mode != PostMode::None || job.machine.cpu_only) {
        const std::string why = job.machine.cpu_only ? "machine.cpu_only: the planner times GPUs; this machine has none"
                                                     : std::string("job.mode: the planner times pre-training and serving; a post-training job (") +
                                                           post_mode_name(job.post.mode) + ") is answered by its phases above, not timed";
        if (planner == Planner::Named && planner_error) *planner_error = why;
        return out;
    }
    try {
        out += "\n" + format_cluster_report(cluster_answer(model, job, parse_cluster(q.cluster, job)));
    } catch (const InputError& err) {
        if (planner == Planner::Named && !planner_error) throw;
        if (planner == Planner::Named) *planner_error = err.what();
        else out += std::string("\nPlanner: ") + err.what() + "\n";
    }
    return out;
}

std::string answer_request(const std::string& config_json, const std::string& question_json) {
    return guarded([&] { return answer_for(model_for(config_json), question_json); });
}

std::string answer_current(const std::string& question_json) {
    if (!current_model()) return current_model_error();
    return answer_for(*current_model(), question_json);
}

}  // namespace vramcalc
