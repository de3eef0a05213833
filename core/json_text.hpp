#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace vramcalc {

// Parses JSON text; malformed text becomes an InputError naming `field`.
nlohmann::json parse_json_text(const std::string& text, const std::string& field);

// Typed reads of one JSON value, for config and job fields alike: a value of
// the wrong type or outside [min, max] becomes an InputError naming `field`.
double number_field(const nlohmann::json& v, const std::string& field, double min, double max);
int64_t whole_field(const nlohmann::json& v, const std::string& field, int64_t min, int64_t max);
bool bool_field(const nlohmann::json& v, const std::string& field);
std::string text_field(const nlohmann::json& v, const std::string& field);

// A short description of a value for error messages: never recursive beyond
// a few levels and never longer than about 80 characters.
std::string describe_value(const nlohmann::json& v);

}  // namespace vramcalc
