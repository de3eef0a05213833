#include "api/answer_parts.hpp"

#include <nlohmann/json.hpp>

#include "answers/inverse.hpp"
#include "answers/verdict.hpp"
#include "api/chart.hpp"
#include "api/intents.hpp"
#include "api/sweep.hpp"
#include "cluster/cluster.hpp"
#include "local/local.hpp"
#include "serving/serving.hpp"
#include "text/errors.hpp"
#include "text/guarded.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

const char* question_title(Question q) {
    switch (q) {
        case Question::MaxContext: return "Longest context";
        case Question::MaxBatch: return "Largest batch";
        case Question::BestFormat: return "Largest weight format";
        case Question::MinGpus: return "Fewest GPUs";
        case Question::MaxGpuLayers: return "Most layers on the GPU (-ngl)";
        case Question::NCpuMoe: return "Fewest layers' experts in RAM (--n-cpu-moe)";
        case Question::MaxCompletionLength: return "Longest completion";
        case Question::MaxGenerations: return "Most completions per prompt";
    }
    return "";
}

// A size to four decimals in the answer's unit: two sides a step apart that print alike at two decimals
// (context 6,950 and 6,951 tokens) are told apart, as they are by the test that decides.
std::string fine_text(double bytes) {
    return printf_text("%.4f", bytes / unit_bytes(text_unit())) + " " + unit_symbol(text_unit());
}

// One side of a row: under vLLM / SGLang the KV the users need against the engine's pool (the engine's
// budget is the same on both sides, so its total says nothing); otherwise the per-GPU total.
std::string figure(const Answer& a, bool next, bool fine = false) {
    const auto size = [fine](double b) { return fine ? fine_text(b) : gb_text(b); };
    if (a.pooled) {
        const double kv = next ? a.kv_next : a.kv_at, pool = next ? a.pool_next : a.pool_at;
        return "KV " + size(kv) + " of a " + size(pool) + " pool";
    }
    return size(next ? a.total_next : a.total_at);
}

void write_row(JsonWriter& w, Question question, const Answer& a) {
    w.begin_object().field("question", question_name(question)).field("title", question_title(question));
    w.field("found", a.found).field("text", a.text);
    if (a.found) w.field("answer", a.value);
    else w.key("answer").raw("null");
    if (a.found && a.next_exists) w.field("next", a.next);
    else w.key("next").raw("null");
    std::string at = a.found ? figure(a, false) : "", next = a.found && a.next_exists ? figure(a, true) : "";
    if (!at.empty() && at == next) at = figure(a, false, true), next = figure(a, true, true);
    w.field("at_figure", at).field("next_figure", next).field("fits_at_next", a.fits_next);
    w.field("at_text", a.found ? a.answer_label + ": " + at + " ✓ fits" : "—");
    w.field("next_text", !a.found ? "—" : !a.next_exists ? "end of the range"
                                                          : a.next_label + ": " + next + (a.fits_next ? " ✓ fits" : " ✗ does not fit"));
    // Two sides with the same figure even to four decimals say why the fit still differs.
    std::string same;
    if (a.found && a.next_exists && at == next)
        same = a.pooled ? "the KV and the pool are the same on both sides: the engine's other tests decide (one request of the "
                          "longest length, its CUDA graphs)"
                        : "the same per-GPU total on both sides: the engine's own test decides";
    w.field("same_why", same).end_object();
}

// The GPU "what fits" answers on: yours, else the one the verdict recommends (at its count and layout).
void write_what_fits(JsonWriter& w, const Model& model, const Query& q, const Job& job, const Estimate* e) {
    json asked = q.job;
    std::string chosen = "yours";
    if (job.machine.cpu_only) {
        // A machine without a GPU (issue 32): the verdict is what its RAM holds; no GPU to ask these of.
        w.begin_object().field("chosen", "none").field("gpu", "").field("gpu_name", "").field("gpus", static_cast<int64_t>(0));
        w.field("text", "This machine has no GPU: the verdict above is what its system RAM holds. What fits on a GPU needs one: "
                        "choose it under Your GPUs.");
        w.key("rows").begin_array().end_array().end_object();
        return;
    }
    if (device_bytes(job) <= 0) {
        const Recommendation& r = e->verdict.recommendation;
        if (!r.found) {
            w.begin_object().field("chosen", "none").field("gpu", "").field("gpu_name", "").field("gpus", static_cast<int64_t>(0));
            w.field("text", "No GPU chosen, and no GPU of the catalog holds this job: choose yours under Your GPUs.");
            w.key("rows").begin_array().end_array().end_object();
            return;
        }
        chosen = "recommended";
        asked["gpu"] = r.gpu_id;
        asked["gpus"] = r.gpus;
        int zero = job.zero;
        // The layout the recommendation counted at that count (answers/fit.cpp fit_layout).
        if (trains(job) && training_layout_for(job, r.gpus, zero) && !asked.contains("zero") && zero > 0) asked["zero"] = zero;
    }
    // llama.cpp and Ollama: asked as the runtime runs the job (--fit's context, --n-cpu-moe and -ngl, each where
    // the user left it unset), the layout the verdict judged; else "what fits" answers for another layout.
    std::string runtime;
    json all_layers;  // the job for --n-cpu-moe where the runtime's -ngl was added below
    if (llama_cpp_like(job) && device_bytes(job) > 0) {
        FitReport fit;
        const Job ran = runtime_job(model, job, fit);
        if (!asked.contains("seq") && !asked.contains("num_ctx")) asked["seq"] = ran.seq;
        // (--n-cpu-moe is llama.cpp's flag: Ollama's job takes none.)
        if (fit.ran && job.engine == Engine::LlamaCpp && !asked.contains("n_cpu_moe") && ran.n_cpu_moe > 0) asked["n_cpu_moe"] = ran.n_cpu_moe;
        // The smallest --n-cpu-moe is asked with every layer on the GPU (-ngl all, as it is used), unless the user set -ngl.
        if (fit.ran && !asked.contains("n_gpu_layers") && ran.n_gpu_layers >= 0) all_layers = asked, asked["n_gpu_layers"] = ran.n_gpu_layers;
        if (fit.ran && !fit.text.empty()) runtime = " as the runtime runs it (" + fit.text + ")";
    }
    const Job on = parse_job(asked);
    const std::string name = gpu_name_of(on);
    const std::string where = (on.gpus > 1 ? std::to_string(on.gpus) + " × " : "") + name + " · " + capacity_text(device_bytes(on));
    w.begin_object().field("chosen", chosen).field("gpu", on.device_gib > 0 ? "custom" : on.gpu->id).field("gpu_name", name);
    w.field("gpus", on.gpus).field("capacity_text", capacity_text(device_bytes(on)));
    w.field("text", chosen == "yours" ? "On your " + where + ", with the rest of the job as set" + runtime + "."
                                      : "No GPU chosen: on the recommended " + where + ", with the rest of the job as set.");
    w.key("rows").begin_array();
    // Every job's questions; a post-training job that generates asks its completions instead of a context
    // (issue 36), and an MoE under llama.cpp how many layers' experts go to RAM (issue 32, --n-cpu-moe).
    std::vector<const char*> questions;
    for (const char* name_q : question_names())
        if (!generates(on.post) || parse_question(name_q) != Question::MaxContext) questions.push_back(name_q);
    if (generates(on.post))
        for (const char* name_q : posttrain_question_names()) questions.push_back(name_q);
    if (on.engine == Engine::LlamaCpp && model.config.is_moe()) questions.push_back(question_name(Question::NCpuMoe));
    for (const char* name_q : questions) {
        const Question question = parse_question(name_q);
        try {
            write_row(w, question, solve(model, question == Question::NCpuMoe && !all_layers.is_null() ? parse_job(all_layers) : on, question));
        } catch (const InputError& err) {
            // A question this engine or mode does not ask (-ngl outside llama.cpp, the format when training).
            if (err.field() == "job.engine" || err.field() == "job.mode") continue;
            w.begin_object().field("question", name_q).field("title", question_title(question)).field("found", false);
            w.field("error", err.what()).end_object();
        }
    }
    w.end_array().end_object();
}

// The planner on the machine (else on the recommended GPUs), and whether its timed layout fits beside the verdict.
void write_planner(JsonWriter& w, const Model& model, const Query& q, const Job& job, const Estimate* e) {
    json cluster = q.cluster;
    std::string planner;
    if (job.post.mode != PostMode::None) {
        // Issue 36's phases (rollout, scoring, the policy's step) have their own answer (the head's posttrain
        // part); the planner times pre-training and serving steps only.
        planner = error_json("job.mode", std::string("job.mode: the planner times pre-training and serving; a post-training job (") +
                                             post_mode_name(job.post.mode) + ") is answered by its phases above, not timed");
    } else if (job.machine.cpu_only) {
        planner = error_json("machine.cpu_only", "machine.cpu_only: the planner times GPUs; this machine has none (the verdict's "
                                                 "speed is its CPU's)");
    } else if (job.device_gib > 0) {
        planner = error_json("machine.gpu", "machine.gpu: the planner times catalog GPUs (their compute and links); a GPU given "
                                            "by its memory has none: choose yours from the list");
    } else {
        // No GPU chosen (and none named for the planner itself, as the CLI's --cluster-gpu does): the recommended ones.
        if (!job.gpu && !cluster.contains("gpu") && e && e->verdict.recommendation.found) {
            cluster["gpu"] = e->verdict.recommendation.gpu_id;
            if (!cluster.contains("gpus")) cluster["gpus"] = e->verdict.recommendation.gpus;
        }
        planner = guarded([&] { return cluster_answer(model, job, parse_cluster(cluster, job)); });
    }
    w.key("planner").raw(planner);
    // The check the answer's parts keep (docs/answer.md): when the verdict fits, the planner's chosen layout should.
    const json p = json::parse(planner);
    w.key("planner_check").begin_object();
    if (p.value("ok", false)) {
        const json& part = p.contains("train") ? p["train"] : p["serve"];
        w.field("gpus", p["hardware"].value("gpus", static_cast<int64_t>(0))).field("gpu", p["hardware"]["gpu"].value("id", ""));
        w.field("layout_text", part["layout"].value("text", "")).field("fits", part.value("fits", false));
        if (e) {
            const std::string status = e->verdict.status;
            w.field("verdict_fits", status == "fits" || status == "tight" || status == "partial");
        }
    }
    w.end_object();
}

}  // namespace

void write_parts(JsonWriter& w, const Model& model, const Query& q, const Job& job, const Estimate* e) {
    if (q.parts & kPartWhatFits) {
        w.key("what_fits");
        write_what_fits(w, model, q, job, e);
    }
    if (q.parts & kPartCharts) {
        w.key("charts").begin_object();
        for (const char* axis : {"seq", "batch"}) w.key(axis).raw(guarded([&] { return chart_for(model, job, axis); }));
        w.end_object();
    }
    if (q.parts & kPartPlanner) write_planner(w, model, q, job, e);
    if (q.parts & kPartMatrix) w.key("matrix").raw(matrix_for(model, q.job.dump()));
    if (q.parts & kPartLadder) {
        w.key("ladder");
        if (!trains(job) && llama_cpp_like(job)) w.raw(ladder_for(model, q.job.dump()));
        else w.raw("null");
    }
}

}  // namespace vramcalc
