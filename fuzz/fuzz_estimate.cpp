// libFuzzer target: the input is split at the first NUL into config.json text
// and job text, and fed to every JSON entry point the page and the CLI use:
// estimate_request, use_config + estimate_current, inspect_config and
// models_summary. Every answer must be valid JSON (nlohmann's parser also
// rejects invalid UTF-8), an error must never be an internal one, and its
// message must be bounded (errors.hpp). Build and run: scripts/fuzz.sh [seconds]
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "api/api.hpp"
#include "text/errors.hpp"

namespace {

void check(const std::string& text) {
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t split = input.find('\0');
    const std::string config = input.substr(0, split);
    const std::string job = split == std::string::npos ? "{}" : input.substr(split + 1);
    check(vramcalc::estimate_request(config, job));
    check(vramcalc::use_config(config));
    check(vramcalc::estimate_current(job));
    check(vramcalc::inspect_config(job));
    check(vramcalc::models_summary("{\"models\":[{\"id\":\"m\",\"name\":\"M\",\"config\":" + config + "}]}"));
    return 0;
}
