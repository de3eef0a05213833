#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace vramcalc {

// Limits for every JSON text the core reads (config, job, models.json).
// Size: a Hugging Face config.json is 1-5 KB, a multimodal one (Llama 4,
// Gemma 3) 20-50 KB, models.json 16 KB; 8 MB leaves room for a pasted
// safetensors header (a few MB) yet bounds what one request can make the
// core copy, parse and hold. Depth: real configs nest 3-4 levels
// (text_config.rope_scaling), models.json adds 3; 64 matches JsonWriter's
// limit and keeps every recursive walk (copy, dump, compare) shallow.
constexpr size_t kMaxJsonBytes = 8'000'000;
constexpr int kMaxJsonDepth = 64;

// The size error, shared with the CLI's file reader: "<field>: larger than 8 MB ...".
[[noreturn]] void throw_too_large(const std::string& field);

// Parses JSON text; malformed text becomes an InputError naming `field`.
// Text over kMaxJsonBytes or nested deeper than kMaxJsonDepth is rejected
// first, by one linear scan that skips strings (and their escapes), without
// recursion, so nothing deep ever reaches the parser. A key given twice in
// one object is an error naming its path ("config.hidden_size: given twice").
nlohmann::json parse_json_text(const std::string& text, const std::string& field);

// For error messages, never recursive: scalars as JSON (strings through
// short_text in errors.hpp), lists and objects summarised ("a list of 3 items").
std::string describe_value(const nlohmann::json& v);

// Typed reads of one JSON value, for config and job fields alike: a value of
// the wrong type or outside [min, max] becomes an InputError naming `field`.
double number_field(const nlohmann::json& v, const std::string& field, double min, double max);
int64_t whole_field(const nlohmann::json& v, const std::string& field, int64_t min, int64_t max);
bool bool_field(const nlohmann::json& v, const std::string& field);
std::string text_field(const nlohmann::json& v, const std::string& field);
// An optional string member of `object`: absent or null → `fallback`.
std::string optional_text(const nlohmann::json& object, const char* key, const std::string& field,
                          const std::string& fallback = "");

}  // namespace vramcalc
