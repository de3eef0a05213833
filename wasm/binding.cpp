// Embind binding: JSON strings in, JSON text out. No logic lives here;
// everything is in core/api.cpp so the CLI and the page share it.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "api/answer.hpp"
#include "api/api.hpp"
#include "api/catalog.hpp"
#include "api/chart.hpp"
#include "api/intents.hpp"
#include "api/job_text.hpp"
#include "api/sweep.hpp"
#include "api/what_fits_json.hpp"
#include "text/errors.hpp"

namespace {

// The answer's bytes as a Uint8Array view into wasm memory, for the caller to
// decode with TextDecoder at once: Embind's own std::string return walks
// every byte in JavaScript (12.5 µs for a 4 KB answer against 0.7 µs).
emscripten::val estimate_view(const std::string& job_json) {
    const std::string& answer = vramcalc::estimate_current(job_json);
    return emscripten::val(
        emscripten::typed_memory_view(answer.size(), reinterpret_cast<const unsigned char*>(answer.data())));
}

// The sweep's header bytes and its numbers as views into wasm memory: the
// chart reads the Float64Array directly instead of a JSON text of 256 points.
emscripten::val sweep_view(const std::string& job_json, const std::string& axis, const std::string& values_json) {
    const vramcalc::SweepTable& t = vramcalc::sweep_table(job_json, axis, values_json);
    emscripten::val out = emscripten::val::object();
    out.set("header", emscripten::val(emscripten::typed_memory_view(
                          t.header.size(), reinterpret_cast<const unsigned char*>(t.header.data()))));
    out.set("numbers", emscripten::val(emscripten::typed_memory_view(t.numbers.size(), t.numbers.data())));
    return out;
}

// The one answer's bytes, as estimate_view's (decoded at once by the caller).
emscripten::val answer_view(const std::string& question_json) {
    thread_local std::string answer;
    answer = vramcalc::answer_current(question_json);
    return emscripten::val(
        emscripten::typed_memory_view(answer.size(), reinterpret_cast<const unsigned char*>(answer.data())));
}

// "What can I run?" (issue 35): the list's bytes as a view into wasm memory, valid until the next call.
emscripten::val what_fits_view(const std::string& request_json) {
    const std::string& answer = vramcalc::what_fits_kept(request_json);
    return emscripten::val(
        emscripten::typed_memory_view(answer.size(), reinterpret_cast<const unsigned char*>(answer.data())));
}

}  // namespace

EMSCRIPTEN_BINDINGS(vramcalc) {
    emscripten::function("estimate", &vramcalc::estimate_request);
    emscripten::function("useConfig", &vramcalc::use_config);
    emscripten::function("useCheckpoint", &vramcalc::use_checkpoint);
    emscripten::function("reattachCheckpoint", &vramcalc::reattach_checkpoint);
    emscripten::function("estimateView", &estimate_view);
    emscripten::function("inspectConfig", &vramcalc::inspect_config);
    emscripten::function("modelsSummary", &vramcalc::models_summary);
    emscripten::function("gpus", &vramcalc::gpus_json);
    emscripten::function("options", &vramcalc::options_json);
    emscripten::function("cluster", &vramcalc::cluster_current);
    emscripten::function("hardware", &vramcalc::hardware_json);
    emscripten::function("solve", &vramcalc::solve_request);
    emscripten::function("solveCurrent", &vramcalc::solve_current);
    emscripten::function("sweep", &vramcalc::sweep_json);
    emscripten::function("sweepView", &sweep_view);
    emscripten::function("matrix", &vramcalc::matrix_json);
    emscripten::function("ticks", &vramcalc::ticks_json);
    // Issue 23: the page built around the user's GPU (docs/page.md, "What the core answers").
    emscripten::function("gpusIn", &vramcalc::gpus_in);
    emscripten::function("useCatalog", &vramcalc::use_catalog);
    emscripten::function("searchModels", &vramcalc::search_catalog);
    emscripten::function("lookupModel", &vramcalc::lookup_model);
    emscripten::function("chart", &vramcalc::chart_current);
    emscripten::function("ladder", &vramcalc::ladder_current);
    emscripten::function("intents", &vramcalc::intents_json);
    // Issue 33: one question (machine, intent, job) in, one answer out (docs/answer.md).
    emscripten::function("answer", &answer_view);
    // The one value parser for text (URL parameters, form fields, widget attributes): core/api/job_text.hpp.
    emscripten::function("jobFromText", &vramcalc::job_text_request);
    emscripten::function("clusterFromText", &vramcalc::cluster_text_request);
    emscripten::function("valueFromText", &vramcalc::value_text_request);
    // Input quoted as the core's own errors quote it (at most 60 characters, then "…" and the size; issue 37 H1).
    emscripten::function("quoteText", &vramcalc::short_text);
    // Issue 35: "What can I run?", the whole catalog (useCatalog) on the user's machine (docs/what-fits.md).
    emscripten::function("whatFits", &vramcalc::what_fits_request);
    emscripten::function("whatFitsView", &what_fits_view);
}
