#pragma once
// Names read into enums once, when a job is parsed: a table of (name, value)
// per enum, and the lookups parse_job and the option lists share
// (job/job.cpp, job/parallel_fields.cpp). Internal to job/.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/errors.hpp"
#include "text/json_text.hpp"

namespace vramcalc {

template <class Enum>
struct Choice {
    const char* name;
    Enum value;
};

template <class Enum, size_t N>
const char* name_of(const Choice<Enum> (&choices)[N], Enum value) {
    for (const auto& c : choices)
        if (c.value == value) return c.name;
    return "?";
}

template <class Enum, size_t N>
std::vector<const char*> names_of(const Choice<Enum> (&choices)[N]) {
    std::vector<const char*> names;
    for (const auto& c : choices) names.push_back(c.name);
    return names;
}

template <class Enum, size_t N>
Enum read_choice(const nlohmann::json& v, const std::string& field, const Choice<Enum> (&choices)[N]) {
    std::string names;
    for (const auto& c : choices) {
        if (v.is_string() && v.get<std::string>() == c.name) return c.value;
        names += (names.empty() ? "" : ", ") + std::string(c.name);
    }
    throw InputError(field, "must be one of " + names + ", got " + describe_value(v));
}

}  // namespace vramcalc
