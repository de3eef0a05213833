// libFuzzer target: the input is split at the first NUL into config.json text
// and job text, and fed to the same JSON entry point the page uses. Every
// answer must be valid JSON, and an error must never be an internal one.
// Build and run: scripts/fuzz.sh [seconds]
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "api.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t split = input.find('\0');
    const std::string config = input.substr(0, split);
    const std::string job = split == std::string::npos ? "{}" : input.substr(split + 1);
    const auto answer = nlohmann::json::parse(vramcalc::estimate_request(config, job), nullptr, false);
    if (answer.is_discarded()) std::abort();
    if (!answer["ok"].get<bool>() && answer["error"]["field"] == "internal") std::abort();
    return 0;
}
