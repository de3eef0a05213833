#pragma once
// One set of rules for a value given as text: a CLI flag, a URL parameter or
// form field of the page, an attribute of the <vram-calc> widget. Each becomes
// the JSON value the job and cluster readers take, by the kind of its field; a
// text that breaks its kind's rule stays text, so the field's reader refuses it
// naming the field and quoting it as typed (job.batch: must be a number, got
// "0x10"). docs/hostile-input.md, "Values given as text", lists the rules.
//
// - Surrounding ASCII whitespace is dropped (as HTML does for attributes; in a
//   URL query "+" is a space, so ?batch=+4 arrives as " 4").
// - Numbers are decimal: an optional sign, digits with an optional fraction, an
//   optional exponent: 4, +4, -1, 0.5, .5, 4., 1e3, 7E9. Not 0x10, 0b1, inf,
//   nan, 1_000, 1,000 or trailing text (strtod and Number() take some of
//   these). Whole numbers stay integers; 1e999 stays text ("must be a finite number").
// - Booleans are true or false, lowercase; 1, 0, yes, no, on, off stay text and
//   are refused. An attribute present without a value (<vram-calc
//   flash-attention>) is true, as HTML's boolean attributes are.
// - Text (names, choices, lists) is kept as given; each field's reader checks
//   it (choices are lowercase and exact: "Full" is not "full").
// - Empty: a number or boolean field given nothing is refused ("needs a number
//   (the field is empty)", "must be true or false").
#include <string>

#include <nlohmann/json.hpp>

namespace vramcalc {

enum class ValueKind { Number, Boolean, Text };

// The kind of a field, from a value of its type (a default): number, boolean, else text.
ValueKind value_kind_of(const nlohmann::json& example);
// "number" | "boolean" | "text" and back; throws InputError(field) for another name.
const char* value_kind_name(ValueKind kind);
ValueKind value_kind_named(const std::string& name, const std::string& field);

// `text` without leading and trailing ASCII whitespace (space, tab, LF, FF, CR).
std::string trim_ascii(const std::string& text);
// Whether `text` (trimmed) is a decimal number by the rule above, finite or not.
bool is_decimal_text(const std::string& text);

// The JSON value `text` stands for as a value of `kind`, or the trimmed text when it breaks the
// rule. `bare_is_true`: an empty text of a boolean field is true (a present attribute).
nlohmann::json value_from_text(const std::string& text, ValueKind kind, bool bare_is_true = false);

}  // namespace vramcalc
