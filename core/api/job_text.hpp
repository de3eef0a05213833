#pragma once
// Job and cluster fields given as text (the CLI's flags, the page's URL and
// form fields, the widget's attributes), each read by the one value parser
// (text/values.hpp) by its field's kind into the JSON objects parse_job and
// parse_cluster read. docs/hostile-input.md, "Values given as text".
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/values.hpp"

namespace vramcalc {

// Where the text comes from: the names of a field given twice are quoted as it spells them
// (--kv-dtype, kv-dtype), and an attribute present without a value is true for a boolean field.
enum class TextSource { Flag, Url, Attribute };
TextSource text_source_named(const std::string& name);  // "flag" | "url" | "attribute"

struct NamedText {
    std::string name;  // kv_dtype or kv-dtype
    std::string text;
};

// The job object for `fields`, each read by its kind: a job field's from its default (options_json's
// defaults, every field the page and the widget offer); a field without one (the CLI's
// engine-internal fields) by the kind its text has: a decimal number, true or false, else text.
// Names may spell _ as - (kv-dtype is kv_dtype); each field once, in either spelling, else
// InputError("job.kv_dtype", "given twice: as kv-dtype and as kv_dtype; give it once"), the names
// in order.
nlohmann::json job_from_text(const std::vector<NamedText>& fields, TextSource source);
// The same for the cluster planner's fields ("cluster.*", kinds from cluster/parse.cpp); a layout
// given as {...} is JSON text.
nlohmann::json cluster_from_text(const std::vector<NamedText>& fields, TextSource source);

// For the wasm: fields_json is [[name, text], ...] -> {"ok":true,"job":{...}} or the error shape;
// cluster_text_request answers {"ok":true,"cluster":{...}}.
std::string job_text_request(const std::string& fields_json, const std::string& source);
std::string cluster_text_request(const std::string& fields_json, const std::string& source);
// One value by kind (number | boolean | text): {"ok":true,"value":V}, V the JSON value or the
// trimmed text when it breaks the rule (the field's reader then names it).
std::string value_text_request(const std::string& text, const std::string& kind, bool bare_is_true);

}  // namespace vramcalc
