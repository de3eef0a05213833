#include "json_text.hpp"

#include <cmath>

#include "errors.hpp"
#include "units.hpp"

namespace vramcalc {

void throw_too_large(const std::string& field) {
    throw InputError(field, "larger than 8 MB (the limit for a JSON input is " + std::to_string(kMaxJsonBytes) +
                                " bytes)");
}

void check_json_limits(const std::string& text, const std::string& field) {
    if (text.size() > kMaxJsonBytes) throw_too_large(field);
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;  // the escaped character cannot end the string
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                throw InputError(field, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;  // unbalanced brackets are left for the parser to report
        }
    }
}

nlohmann::json parse_json_text(const std::string& text, const std::string& field) {
    check_json_limits(text, field);
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        // Syntax errors and numbers too large for a double (1e999) alike.
        // e.what() carries the byte position, which is what a user needs to
        // fix it (and InputError bounds the "last read" token it quotes).
        throw InputError(field, std::string("malformed JSON: ") + e.what());
    }
}

std::string describe_value(const nlohmann::json& v) {
    using T = nlohmann::json::value_t;
    switch (v.type()) {
        case T::string: return "\"" + short_text(v.get_ref<const std::string&>()) + "\"";
        case T::array: return v.empty() ? "an empty list" : "a list of " + std::to_string(v.size()) + " items";
        case T::object: return v.empty() ? "an empty object" : "an object with " + std::to_string(v.size()) + " fields";
        case T::number_float: {
            const double d = v.get<double>();
            if (std::isnan(d)) return "NaN";
            if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
            return v.dump();
        }
        case T::null:
        case T::boolean:
        case T::number_integer:
        case T::number_unsigned: return v.dump();  // scalars: no recursion, a few bytes
        default: return "a binary value";
    }
}

double number_field(const nlohmann::json& v, const std::string& field, double min, double max) {
    if (!v.is_number()) throw InputError(field, "must be a number, got " + describe_value(v));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < min || d > max)
        throw InputError(field, "must be between " + plain_number(min) + " and " + plain_number(max) + ", got " +
                                    describe_value(v));
    return d;
}

int64_t whole_field(const nlohmann::json& v, const std::string& field, int64_t min, int64_t max) {
    const double d = number_field(v, field, static_cast<double>(min), static_cast<double>(max));
    if (d != std::floor(d)) throw InputError(field, "must be a whole number, got " + describe_value(v));
    return static_cast<int64_t>(d);
}

bool bool_field(const nlohmann::json& v, const std::string& field) {
    if (!v.is_boolean()) throw InputError(field, "must be true or false, got " + describe_value(v));
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
    if (!v.is_string()) throw InputError(field, "must be a string, got " + describe_value(v));
    return v.get<std::string>();
}

std::string optional_text(const nlohmann::json& object, const char* key, const std::string& field,
                          const std::string& fallback) {
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return fallback;
    return text_field(*it, field);
}

}  // namespace vramcalc
