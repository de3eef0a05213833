#pragma once
// What every fuzz target checks of an answer of the JSON API: valid JSON
// (nlohmann's parser also rejects invalid UTF-8), {"ok": ...}, and for a
// rejection a bounded message that starts with its field and is never an
// internal error (errors.hpp). A finding aborts, which libFuzzer reports
// with the input that caused it.
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "text/errors.hpp"

namespace fuzz {

inline void check(const std::string& text) {
    const auto answer = nlohmann::json::parse(text, nullptr, false);
    if (answer.is_discarded() || !answer.is_object() || !answer.contains("ok")) std::abort();
    if (answer["ok"].get<bool>()) return;
    const std::string field = answer["error"]["field"];
    const std::string message = answer["error"]["message"];
    if (field == "internal") std::abort();
    if (message.rfind(field + ": ", 0) != 0) std::abort();
    if (field.size() > vramcalc::kMaxErrorFieldBytes + 3) std::abort();
    if (message.size() > field.size() + 2 + vramcalc::kMaxErrorMessageBytes + 3) std::abort();
}

}  // namespace fuzz
