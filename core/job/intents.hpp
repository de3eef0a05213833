#pragma once
// The page's four entry points as data (issue 23, issue 33): each a named set of job fields (and, for
// pre-training, cluster fields), every value cited. An intent sets the job (mode, framework, engine,
// recipe), never the machine: no intent names a GPU or a GPU count. Its preset follows the model: a
// variant per kind of model (a 70B dense model takes torchtitan's 70B config, an MoE expert parallelism),
// the first variant that matches the model adding to (and overriding) the intent's own fields. The user
// edits any field afterwards: an intent is a starting point, not a mode of its own.
#include <string>
#include <vector>

#include "job/presets.hpp"
#include "model/config.hpp"

namespace vramcalc {

// Which models a variant is for: dense models by the torchtitan config nearest in size (8B, 70B, 405B:
// the geometric middles 23.7 B and 168 B between them), mixtures of experts apart.
enum class ModelScale { Any, Dense8B, Dense70B, Dense405B, Moe };
const char* model_scale_name(ModelScale s);
ModelScale model_scale(const ModelConfig& c, double params_total);

struct IntentVariant {
    ModelScale scale;
    const char* recipe;                // "torchtitan's Llama 3 70B config"
    std::vector<PresetField> job;      // added to the intent's fields, overriding them
};

struct Intent {
    const char* id;           // run_locally, serve, fine_tune, pretrain
    const char* label;        // "Run locally"
    const char* question;     // what it answers, in the user's words
    const char* recipe;       // the recipe its fields are, in words ("Unsloth's notebooks")
    std::vector<PresetField> job;      // job fields, as JSON values (never gpu, gpus, device_gb, device_gib)
    std::vector<IntentVariant> variants;
    std::vector<PresetField> cluster;  // cluster planner fields (pretrain; never gpu or gpus)
    const char* view;         // what the page leads with: "ladder", "serving", "verdict", "cluster"
};

const std::vector<Intent>& intents();
// The intent of that id (the four, or post_train), or InputError("intent") naming them.
const Intent& find_intent(const std::string& id);

// An intent as it applies to one model: its fields with the matching variant's over them (each once,
// the variant's value winning), and the recipe named in words.
struct ResolvedIntent {
    const Intent* intent = nullptr;
    const IntentVariant* variant = nullptr;
    std::vector<PresetField> job;
    std::string recipe;
};
ResolvedIntent resolve_intent(const Intent& intent, const ModelConfig& c, double params_total);

// Recipes a fine-tune is compared with (the answer's recipe line: "QLoRA, Unsloth recipe: 7.56 GB · HF +
// PEFT: 9.81 GB"): the frameworks people copy for LoRA and QLoRA, each a preset of core/job/presets.cpp.
struct RecipeChoice {
    const char* framework;  // a framework id of presets.cpp
    const char* label;      // "Unsloth", "HF + PEFT"
};
const std::vector<RecipeChoice>& fine_tune_recipes();
// The post-training frameworks a GRPO / DPO / PPO job is compared with (job/posttrain_presets.cpp).
const std::vector<RecipeChoice>& posttrain_recipes();

// Issue 36: the post-training entry point, kept apart from the four until the page shows it
// (core/api/intents.cpp writes it under "post_train"); the question's intent may name it
// (find_intent looks in both).
const std::vector<Intent>& posttrain_intents();

}  // namespace vramcalc
