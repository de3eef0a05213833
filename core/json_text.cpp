#include "json_text.hpp"

#include <cmath>

#include "errors.hpp"
#include "units.hpp"

namespace vramcalc {

nlohmann::json parse_json_text(const std::string& text, const std::string& field) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        // Syntax errors and numbers too large for a double (1e999) alike.
        // e.what() carries the byte position, which is what a user needs to fix it.
        throw InputError(field, std::string("malformed JSON: ") + e.what());
    }
}

double number_field(const nlohmann::json& v, const std::string& field, double min, double max) {
    if (!v.is_number()) throw InputError(field, "must be a number, got " + v.dump());
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < min || d > max)
        throw InputError(field, "must be between " + plain_number(min) + " and " + plain_number(max) + ", got " + v.dump());
    return d;
}

int64_t whole_field(const nlohmann::json& v, const std::string& field, int64_t min, int64_t max) {
    const double d = number_field(v, field, static_cast<double>(min), static_cast<double>(max));
    if (d != std::floor(d)) throw InputError(field, "must be a whole number, got " + v.dump());
    return static_cast<int64_t>(d);
}

bool bool_field(const nlohmann::json& v, const std::string& field) {
    if (!v.is_boolean()) throw InputError(field, "must be true or false, got " + v.dump());
    return v.get<bool>();
}

std::string describe_value(const nlohmann::json& v) {
    if (v.is_array()) return "a list of " + std::to_string(v.size());
    if (v.is_object()) return "an object";
    std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (text.size() > 80) text = text.substr(0, 77) + "...";
    return text;
}

std::string text_field(const nlohmann::json& v, const std::string& field) {
    if (!v.is_string()) throw InputError(field, "must be a string, got " + v.dump());
    return v.get<std::string>();
}

}  // namespace vramcalc
