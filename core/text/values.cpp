#include "text/values.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "text/errors.hpp"

namespace vramcalc {

ValueKind value_kind_of(const nlohmann::json& example) {
    if (example.is_boolean()) return ValueKind::Boolean;
    if (example.is_number()) return ValueKind::Number;
    return ValueKind::Text;
}

const char* value_kind_name(ValueKind kind) {
    return kind == ValueKind::Number ? "number" : kind == ValueKind::Boolean ? "boolean" : "text";
}

ValueKind value_kind_named(const std::string& name, const std::string& field) {
    for (ValueKind k : {ValueKind::Number, ValueKind::Boolean, ValueKind::Text})
        if (name == value_kind_name(k)) return k;
    throw InputError(field, "must be number, boolean or text, got '" + short_text(name) + "'");
}

std::string trim_ascii(const std::string& text) {
    const char* space = " \t\n\f\r";
    const size_t first = text.find_first_not_of(space);
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(space) - first + 1);
}

bool is_decimal_text(const std::string& t) {
    size_t i = 0, digits = 0;
    const auto digit = [&](size_t k) { return k < t.size() && t[k] >= '0' && t[k] <= '9'; };
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    while (digit(i)) ++i, ++digits;
    if (i < t.size() && t[i] == '.') {
        ++i;
        while (digit(i)) ++i, ++digits;
    }
    if (digits == 0) return false;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        if (!digit(i)) return false;
        while (digit(i)) ++i;
    }
    return i == t.size();
}

nlohmann::json value_from_text(const std::string& text, ValueKind kind, bool bare_is_true) {
    const std::string t = trim_ascii(text);
    switch (kind) {
        case ValueKind::Boolean:
            if (t == "true" || (t.empty() && bare_is_true)) return true;
            if (t == "false") return false;
            return t;
        case ValueKind::Number: {
            if (!is_decimal_text(t)) return t;
            // Whole numbers stay integers, so errors quote them as typed (-1, not -1.0).
            if (t.find_first_of(".eE") == std::string::npos) {
                errno = 0;
                char* end = nullptr;
                const long long n = std::strtoll(t.c_str(), &end, 10);
                if (errno == 0 && end && *end == '\0') return static_cast<int64_t>(n);
            }
            const double d = std::strtod(t.c_str(), nullptr);
            if (!std::isfinite(d)) return t;  // the reader says "must be a finite number"
            return d;
        }
        case ValueKind::Text:
            break;
    }
    return t;
}

}  // namespace vramcalc
