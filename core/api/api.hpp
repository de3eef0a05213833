#pragma once
// JSON in, JSON out. The CLI's --json, the WebAssembly binding and the tests
// all go through these functions, so the page and the CLI agree by design.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "answers/estimate.hpp"
#include "text/json_writer.hpp"

namespace vramcalc {

struct ModelEntry {
    std::string id;         // short name used by --model and the page
    std::string name;       // display name
    std::string hf_id;      // Hugging Face repository the config comes from
    nlohmann::json config;  // the config.json fields
    double published_params = 0;  // model card figure, for checks
    std::string source;     // where published_params comes from
    // Issue 35's catalog fields (scripts/make_models.py): the family as people name it ("Llama 3"), the
    // Hugging Face licence tag, the modality (text, vision, audio, encoder) and the release month.
    std::string family, license, modality, released;
};

// Parses models.json. Throws InputError("models...") on malformed entries.
std::vector<ModelEntry> parse_models(const std::string& text);
const ModelEntry& find_model(const std::vector<ModelEntry>& models, const std::string& id);

// The estimate as JSON text (numbers and the texts the page shows).
std::string estimate_json(const Model& model, const Job& job, const Estimate& e);
// The same fields written into an object the caller has begun (the answer's head, api/answer.hpp);
// `with_colocation` false leaves out the `colocation` key of several jobs on one GPU (the answer's
// own `machine` part carries it as `machine.shared`).
void write_estimate(JsonWriter& w, const Model& model, const Job& job, const Estimate& e, bool with_colocation = true);

// The model of a config text, parsed once and kept while the same text comes again (throws InputError).
const Model& model_for(const std::string& config_json);
// {"ok":true, ...estimate...} or {"ok":false,"error":{"field":...,"message":...}}.
std::string estimate_request(const std::string& config_json, const std::string& job_json);
// {"ok":true,"model":{counts}} or the same error shape; for a pasted config.
std::string inspect_config(const std::string& config_json);
// The same answer for a prepared model.
std::string counts_answer(const Model& model);
// Inverse answers (core/inverse.hpp): {"ok":true,"question":...,"answer":N,"format":...,"fits_at_answer":true,
// "next":N±1,"fits_at_next":false,"total_at_answer_bytes":...,"text":...} or the error shape.
std::string solve_request(const std::string& config_json, const std::string& job_json, const std::string& question);
// The same for a prepared model (the CLI's, with a checkpoint attached).
std::string solve_for(const Model& model, const std::string& job_json, const std::string& question);
// The same for the model chosen by use_config.
std::string solve_current(const std::string& job_json, const std::string& question);

// The page's path. Embind copies strings byte by byte in JavaScript, so the
// config crosses into the core once per model rather than on every input
// change: use_config answers like inspect_config and remembers the model (or
// its error); estimate_current answers like estimate_request for it. The
// returned text stays valid until the next call.
std::string use_config(const std::string& config_json);
const std::string& estimate_current(const std::string& job_json);
// Checkpoint metadata (a safetensors header or index, or a GGUF header; raw
// bytes) for the model use_config chose: with dtype auto its weights become
// exact to the byte. Answers like inspect_checkpoint, with the comparison
// against the architecture-derived count; an error leaves the model as it was.
std::string use_checkpoint(const std::string& bytes);
// Re-attaches the last checkpoint use_checkpoint accepted when the model use_config
// chose is the one it was attached to (same config text); false otherwise.
bool reattach_checkpoint();
// The model use_config chose, or null when its config was rejected (then
// current_model_error() is the error answer use_config gave).
const Model* current_model();
const std::string& current_model_error();
// {"ok":true,"models":[{id,name,hf_id,params_total,params_active,config}]} for the model picker.
std::string models_summary(const std::string& models_json);
std::string gpus_json();
// The same with the capacities in `units` ("gb", "gib" or "mib"), each with its source and kind.
std::string gpus_in(const std::string& units);
// The choices the page offers, so it never hard-codes a list the core does not accept.
std::string options_json();

// The cluster planner (core/cluster.hpp): throughput, interconnect, time and
// cost for the job on a cluster. cluster_json is the "cluster" object
// (gpu, gpus, fabric, layout, assumptions, budget, serving load). Answers
// {"ok":true, hardware, assumptions, workload, train + recommendation | serve,
// notes} or the error shape. cluster_current uses the model of use_config.
std::string cluster_request(const std::string& config_json, const std::string& job_json, const std::string& cluster_json);
std::string cluster_current(const std::string& job_json, const std::string& cluster_json);
// The same for a prepared model.
std::string cluster_for(const Model& model, const std::string& job_json, const std::string& cluster_json);
// {"gpus":[catalog with compute, bandwidth, links, sources], "fabrics":[...]}.
std::string hardware_json();

}  // namespace vramcalc
