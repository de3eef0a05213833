#pragma once
// The one question the page, the widget and the CLI ask (issue 33; docs/answer.md): the user's machine,
// the intent and the job. It is read once, here, into the job the core estimates, the counterpart job
// (inference beside training) and the planner's fields, so every part of the answer (api/answer.hpp) is
// computed from the same machine, job and layout.
//
//   {"model_name": "Llama 3 70B",                     the model as the asker names it (≤ 200 characters)
//    "machine": {"gpu": "h100", "gpus": 256},          or device_gb / device_gib; absent: no GPU chosen
//    "intent": "pretrain",                             run_locally | serve | fine_tune | pretrain, or absent
//    "job": {"seq": 8192, ...},                        the fields the user set; they win over the intent's
//    "fp8": "blockwise",                               FP8 training: a recipe of fp8_recipes(), or "none"
//    "cluster": {"tokens": "1T", ...},                 the planner's fields (never its GPU or count)
//    "parts": ["head", "what_fits", ...]}              which parts to answer (absent: all)
//
// The machine always wins: an intent never names a GPU or a count, and the job's own gpu / gpus are
// replaced by the machine's when a machine is given (without one, as the CLI's --gpu and --gpus set them).
// Layout degrees an intent brings (torchtitan's TP 8, EP 8) are fitted to the machine's count: the largest
// degree up to the recipe's that divides the GPUs (and the heads, or the experts), said in the recipe.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "job/intents.hpp"
#include "model/model.hpp"

namespace vramcalc {

// The parts of the answer (bit flags): head = the estimate, verdict, cards, capacity, recipe, notes,
// assumptions and counterpart; the rest are the page's later panels.
enum AnswerPart : unsigned {
    kPartHead = 1, kPartWhatFits = 2, kPartCharts = 4, kPartPlanner = 8, kPartMatrix = 16, kPartLadder = 32,
    kPartAll = 63,
};
std::vector<const char*> answer_part_names();

// A job field the intent or the machine set, said for people: "Tensor parallel (TP): 8 (torchtitan …)".
struct RecipeField {
    std::string key, label, value, source;
};

struct Query {
    nlohmann::json job = nlohmann::json::object();          // the job the core estimates
    nlohmann::json cluster = nlohmann::json::object();      // the planner's fields, on the machine
    std::string model_name;
    const Intent* intent = nullptr;
    std::string recipe;                    // the intent's recipe for this model, in words ("" without one)
    std::vector<RecipeField> recipe_fields;
    std::vector<std::string> adapted;      // degrees fitted to the machine: "TP 8 (…) → 1 on your 1 GPU"
    std::string fp8;                       // the FP8 recipe asked for ("" none)
    unsigned parts = kPartAll;
};

// Reads the question for `model` (the intent's variant follows it). Errors name their field: "machine.gpus",
// "intent", "fp8", "parts", "model_name"; job fields are checked when the job is read (job.*).
Query read_query(const Model& model, const nlohmann::json& question);

// FP8 training recipes the page offers (the planner's, core/cluster/kernels.cpp), each with the memory model
// it takes (job.fp8: torchao or te): [{"id","label","memory","source"}].
std::string fp8_recipes_json();

}  // namespace vramcalc
