// libFuzzer target: the input is a config.json text, fed to every entry point
// that reads one: inspect_config, use_config + estimate_current (the page),
// estimate_request (the CLI's --json and the widget) for inference and
// training, and models_summary with the text as a catalog entry's config.
// Run: scripts/fuzz.sh [seconds] config
#include <cstdint>
#include <string>

#include "api/api.hpp"
#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string config(reinterpret_cast<const char*>(data), size);
    fuzz::check(vramcalc::inspect_config(config));
    fuzz::check(vramcalc::use_config(config));
    fuzz::check(vramcalc::estimate_current("{}"));
    fuzz::check(vramcalc::estimate_request(config, R"({"mode":"train"})"));
    fuzz::check(vramcalc::models_summary(R"({"models":[{"id":"m","name":"M","config":)" + config + "}]}"));
    return 0;
}
