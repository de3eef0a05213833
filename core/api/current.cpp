// The page's path: the model chosen once per config (use_config), its
// checkpoint, and the answers for it. Embind copies strings byte by byte in
// JavaScript, so the config crosses into the core once per model, not on
// every input change.
#include <optional>

#include "api/api.hpp"
#include "checkpoint/checkpoint.hpp"
#include "text/guarded.hpp"
#include "text/json_text.hpp"

namespace vramcalc {

namespace {

// The model chosen by use_config, or the error that rejected its config.
struct CurrentModel {
    std::optional<Model> model;
    std::string error = error_json("config", "config: no model chosen yet");
    std::string config;  // the text it was chosen with
};
thread_local CurrentModel current;
// The last checkpoint attached, with the config it belongs to: choosing that
// config again re-attaches it without reading the header again.
struct KeptCheckpoint {
    std::string config;
    ExactWeights exact;
};
thread_local KeptCheckpoint kept;

}  // namespace

std::string use_config(const std::string& config_json) {
    current = CurrentModel{};
    const std::string answer = guarded([&] {
        current.model = prepare_model(parse_config_text(config_json));
        return counts_answer(*current.model);
    });
    if (!current.model) current.error = answer;
    else current.config = config_json;
    return answer;
}

bool reattach_checkpoint() {
    if (!current.model || !kept.exact.present() || kept.config != current.config) return false;
    current.model->exact = kept.exact;
    return true;
}

std::string use_checkpoint(const std::string& bytes) {
    if (!current.model) return current.error;
    return guarded([&] {
        const CheckpointInfo info = read_checkpoint(bytes);
        attach_checkpoint(*current.model, info);
        kept = KeptCheckpoint{current.config, current.model->exact};
        return checkpoint_answer(info, current.model->params.total, current.model->exact.note);
    });
}

const std::string& estimate_current(const std::string& job_json) {
    thread_local std::string answer;
    if (!current.model) return current.error;
    answer = guarded([&] {
        const Job job = parse_job(parse_json_text(job_json, "job"));
        return estimate_json(*current.model, job, estimate(*current.model, job));
    });
    return answer;
}

std::string solve_current(const std::string& job_json, const std::string& question) {
    if (!current.model) return current.error;
    return solve_for(*current.model, job_json, question);
}

const Model* current_model() { return current.model ? &*current.model : nullptr; }
const std::string& current_model_error() { return current.error; }

std::string cluster_current(const std::string& job_json, const std::string& cluster_json) {
    if (!current.model) return current.error;
    return cluster_for(*current.model, job_json, cluster_json);
}

}  // namespace vramcalc
