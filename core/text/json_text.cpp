#include "text/json_text.hpp"

#include <cmath>
#include <cstdlib>
#include <set>
#include <vector>

#include "text/errors.hpp"
#include "text/units.hpp"
#include "text/values.hpp"

namespace vramcalc {

void throw_too_large(const std::string& field) {
    throw InputError(field, "larger than 8 MB (the limit for a JSON input is " + std::to_string(kMaxJsonBytes) +
                                " bytes)");
}

namespace {

// Rejects a key given twice in one object (nlohmann, like Python's json,
// would silently keep the last): {"hidden_size": 4096, ..., "hidden_size": 8192}
// is a paste mistake, and which one wins should not be a guess. The error
// names the key's path, e.g. config.text_config.hidden_size.
class DuplicateKeys {
public:
    using json = nlohmann::json;
    explicit DuplicateKeys(const std::string& field) : field_(field) {}
    // A SAX pass (linear: nlohmann's callback parser rescans a parent's
    // children on every closing brace, quadratic on many small objects).
    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(std::string& k) {
        if (frames_.empty()) return true;
        Frame& top = frames_.back();
        top.key = k;
        if (!top.keys.insert(k).second) throw InputError(path(), "given twice in one object");
        return true;
    }
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t) { return true; }
    bool number_unsigned(json::number_unsigned_t) { return true; }
    bool number_float(json::number_float_t, const std::string&) { return true; }
    bool string(std::string&) { return true; }
    bool binary(json::binary_t&) { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

private:
    struct Frame {
        std::set<std::string> keys;  // a set: an 8 MB object can hold 600,000 keys
        std::string key;
        bool object;
    };
    bool open(bool object) {
        frames_.push_back({{}, {}, object});
        return true;
    }
    bool close() {
        if (!frames_.empty()) frames_.pop_back();
        return true;
    }
    std::string path() const {
        std::string p = field_;
        for (const Frame& f : frames_) p += f.object ? "." + f.key : "[]";
        return p;
    }
    std::string field_;
    std::vector<Frame> frames_;  // at most kMaxJsonDepth deep
};

// The size and depth check: one linear scan, no recursion. Returns how many object keys
// the text holds (a string followed by ':'), for the duplicate check.
size_t scan_json(const std::string& text, const std::string& field) {
    if (text.size() > kMaxJsonBytes) throw_too_large(field);
    int depth = 0;
    size_t keys = 0;
    bool in_string = false, after_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;  // the escaped character cannot end the string
            else if (c == '"') in_string = false, after_string = true;
            continue;
        }
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == ':' && after_string) ++keys;
        after_string = false;
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                throw InputError(field, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;  // unbalanced brackets are left for the parser to report
        }
    }
    return keys;
}

// Members of every object in `v`; recursion is bounded by kMaxJsonDepth.
size_t member_count(const nlohmann::json& v) {
    size_t n = v.is_object() ? v.size() : 0;
    if (v.is_structured())
        for (const auto& child : v) n += member_count(child);
    return n;
}

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& field) {
    const size_t keys = scan_json(text, field);
    try {
        nlohmann::json parsed = nlohmann::json::parse(text);
        // The parser keeps the last of duplicate keys: fewer members than keys
        // in the text means one was given twice. Only then parse again, with
        // a SAX pass that finds and names it.
        if (member_count(parsed) != keys) {
            DuplicateKeys sax(field);
            nlohmann::json::sax_parse(text, &sax);
        }
        return parsed;
    } catch (const nlohmann::json::exception& e) {
        // Syntax errors and numbers too large for a double (1e999) alike.
        // e.what() carries the byte position, which is what a user needs to
        // fix it (and InputError bounds the "last read" token it quotes).
        // nlohmann prefixes its own id ("[json.exception.parse_error.101] "): dropped, it means nothing to a reader.
        std::string what = e.what();
        if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos)
            what.erase(0, what.find("] ") + 2);
        throw InputError(field, "malformed JSON: " + what);
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
    if (v.is_string() && v.get_ref<const std::string&>().find_first_not_of(" \t\n\r") == std::string::npos)
        throw InputError(field, "needs a number (the field is empty)");  // a cleared form field
    // Text that is a decimal number past the double range (a flag's 1e999, which the text rule leaves as text).
    if (v.is_string()) {
        const std::string t = trim_ascii(v.get_ref<const std::string&>());
        if (is_decimal_text(t) && !std::isfinite(std::strtod(t.c_str(), nullptr)))
            throw InputError(field, "must be a finite number, got " + short_text(t));
    }
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
