#pragma once
// The sentences under the breakdown, for people (issue 33): at most five notes, the ones that change how
// the answer reads (a context past the model's, the step's peak, the weights rule, a pipeline stage, CPU
// memory); and the presets' values in force, each field once in words ("Gradient checkpointing: full"),
// never as the core's keys, with the code each came from.
#include <string>
#include <vector>

#include "answers/estimate.hpp"
#include "job/plan.hpp"

namespace vramcalc {

constexpr size_t kMaxNotes = 5;

std::vector<std::string> notes_for(const Plan& plan, const Estimate& e);

// One value a preset, the intent or vramcalc itself assumed, said for people.
struct AssumptionLine {
    std::string key;     // the job field (data only, never shown)
    std::string label;   // the field as the page's form names it (text/field_labels.cpp)
    std::string value;   // in words: "full", "yes", "0.9"
    std::string by;      // who set it: "torchtitan", "vLLM 0.21 and later", "QLoRA fine-tuning"
    std::string source;  // the code or paper it was read from
    std::string text;    // "Gradient checkpointing: full (torchtitan)"
};
// The job's assumptions (presets applied by parse_job, each field once), then what the totals count.
std::vector<AssumptionLine> assumption_lines(const Job& job, const Estimate& e);
// A JSON value as people read it: true → "yes", false → "no", "full" → full, numbers as written.
std::string value_in_words(const std::string& json_value);

}  // namespace vramcalc
