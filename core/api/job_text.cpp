#include "api/job_text.hpp"

#include <algorithm>
#include <map>

#include "api/api.hpp"
#include "cluster/cluster.hpp"
#include "text/errors.hpp"
#include "text/guarded.hpp"
#include "text/json_text.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

// A field without a declared kind: the kind its text has.
ValueKind kind_of_text(const std::string& text) {
    const std::string t = trim_ascii(text);
    if (t == "true" || t == "false") return ValueKind::Boolean;
    return is_decimal_text(t) ? ValueKind::Number : ValueKind::Text;
}

std::string key_of(std::string name) {
    for (char& ch : name)
        if (ch == '-') ch = '_';
    return name;
}

std::string quoted(const std::string& name, TextSource source) {
    return (source == TextSource::Flag ? "--" : "") + short_text(name);
}

template <class Kind>
json from_text(const std::vector<NamedText>& fields, TextSource source, const char* prefix, Kind kind_of) {
    json out = json::object();
    std::map<std::string, std::string> spelled;  // key -> the name it was given as
    for (const NamedText& f : fields) {
        const std::string key = key_of(f.name);
        const std::string field = std::string(prefix) + key;
        if (!is_utf8(f.name) || !is_utf8(f.text)) throw InputError(field, "is not valid UTF-8 text: '" + short_text(f.text) + "'");
        const auto [at, fresh] = spelled.emplace(key, f.name);
        if (!fresh) {
            // In name order, so the message does not depend on the order given (a widget's attributes have none).
            const auto [first, second] = std::minmax(at->second, f.name);
            throw InputError(field, "given twice: as " + quoted(first, source) + " and as " + quoted(second, source) +
                                        "; give it once");
        }
        ValueKind kind = ValueKind::Text;
        const bool known = kind_of(key, kind);
        if (!known) kind = kind_of_text(f.text);
        const std::string trimmed = trim_ascii(f.text);
        // A cluster layout given as an object: JSON text (--cluster-layout '{"tp":8}').
        if (std::string(prefix) == "cluster." && key == "layout" && trimmed.rfind('{', 0) == 0)
            out[key] = parse_json_text(trimmed, field);
        // The jobs sharing the GPU as JSON text (--machine-jobs '[{"model":"bge-m3",...}]', the page's link),
        // and a model given as its config.json (--speculative-model '{...}'); issue 36.
        else if (std::string(prefix) == "job." && ((key == "machine_jobs" && trimmed.rfind('[', 0) == 0) ||
                                                   (key == "speculative_model" && trimmed.rfind('{', 0) == 0)))
            out[key] = parse_json_text(trimmed, field);
        else
            out[key] = value_from_text(f.text, kind, source == TextSource::Attribute);
    }
    return out;
}

std::vector<NamedText> named_texts(const std::string& fields_json) {
    const json given = parse_json_text(fields_json, "fields");
    if (!given.is_array()) throw InputError("fields", "must be a list of [name, text] pairs, got " + describe_value(given));
    std::vector<NamedText> fields;
    for (const json& pair : given) {
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
            throw InputError("fields", "must be a list of [name, text] pairs, got " + describe_value(pair));
        fields.push_back({pair[0].get<std::string>(), pair[1].get<std::string>()});
    }
    return fields;
}

const json& job_defaults() {
    static const json defaults = json::parse(options_json()).at("defaults");
    return defaults;
}

}  // namespace

TextSource text_source_named(const std::string& name) {
    if (name == "flag") return TextSource::Flag;
    if (name == "url") return TextSource::Url;
    if (name == "attribute") return TextSource::Attribute;
    throw InputError("source", "must be flag, url or attribute, got '" + short_text(name) + "'");
}

json job_from_text(const std::vector<NamedText>& fields, TextSource source) {
    return from_text(fields, source, "job.", [](const std::string& key, ValueKind& kind) {
        const json& d = job_defaults();
        const auto it = d.find(key);
        if (it == d.end()) return false;
        kind = value_kind_of(*it);
        return true;
    });
}

json cluster_from_text(const std::vector<NamedText>& fields, TextSource source) {
    return from_text(fields, source, "cluster.",
                     [](const std::string& key, ValueKind& kind) { return cluster_field_kind(key, kind); });
}

std::string job_text_request(const std::string& fields_json, const std::string& source) {
    return guarded([&] {
        return json{{"ok", true}, {"job", job_from_text(named_texts(fields_json), text_source_named(source))}}.dump();
    });
}

std::string cluster_text_request(const std::string& fields_json, const std::string& source) {
    return guarded([&] {
        return json{{"ok", true}, {"cluster", cluster_from_text(named_texts(fields_json), text_source_named(source))}}.dump();
    });
}

std::string value_text_request(const std::string& text, const std::string& kind, bool bare_is_true) {
    return guarded([&] {
        if (!is_utf8(text)) throw InputError("value", "is not valid UTF-8 text: '" + short_text(text) + "'");
        return json{{"ok", true}, {"value", value_from_text(text, value_kind_named(kind, "kind"), bare_is_true)}}.dump();
    });
}

}  // namespace vramcalc
