#pragma once
// JSON in, JSON out. The CLI's --json, the WebAssembly binding and the tests
// all go through these functions, so the page and the CLI agree by design.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memory.hpp"

namespace vramcalc {

struct ModelEntry {
    std::string id;         // short name used by --model and the page
    std::string name;       // display name
    std::string hf_id;      // Hugging Face repository the config comes from
    nlohmann::json config;  // the config.json fields
    double published_params = 0;  // model card figure, for checks
    std::string source;     // where published_params comes from
};

// Parses models.json. Throws InputError("models...") on malformed entries.
std::vector<ModelEntry> parse_models(const std::string& text);
const ModelEntry& find_model(const std::vector<ModelEntry>& models, const std::string& id);

// The estimate as JSON text (numbers and the texts the page shows).
std::string estimate_json(const Model& model, const Job& job, const Estimate& e);

// {"ok":true, ...estimate...} or {"ok":false,"error":{"field":...,"message":...}}.
std::string estimate_request(const std::string& config_json, const std::string& job_json);
// {"ok":true,"model":{counts}} or the same error shape; for a pasted config.
std::string inspect_config(const std::string& config_json);

// The page's path. Embind copies strings byte by byte in JavaScript, so the
// config crosses into the core once per model rather than on every input
// change: use_config answers like inspect_config and remembers the model (or
// its error); estimate_current answers like estimate_request for it. The
// returned text stays valid until the next call.
std::string use_config(const std::string& config_json);
const std::string& estimate_current(const std::string& job_json);
// The model use_config chose, or null when its config was rejected (then
// current_model_error() is the error answer use_config gave).
const Model* current_model();
const std::string& current_model_error();
// {"ok":true,"models":[{id,name,hf_id,params_total,params_active,config}]} for the model picker.
std::string models_summary(const std::string& models_json);
std::string gpus_json();
// The choices the page offers, so it never hard-codes a list the core does not accept.
std::string options_json();

}  // namespace vramcalc
