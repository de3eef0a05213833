// Embind binding: JSON strings in, JSON strings out. No logic lives here;
// everything is in core/api.cpp so the CLI and the page share it.
#include <emscripten/bind.h>

#include "api.hpp"

EMSCRIPTEN_BINDINGS(vramcalc) {
    emscripten::function("estimate", &vramcalc::estimate_request);
    emscripten::function("inspectConfig", &vramcalc::inspect_config);
    emscripten::function("modelsSummary", &vramcalc::models_summary);
    emscripten::function("gpus", &vramcalc::gpus_json);
    emscripten::function("options", &vramcalc::options_json);
}
