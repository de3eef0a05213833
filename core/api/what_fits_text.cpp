// The CLI's "What can I run?" table: the JSON answer (what_fits_json.cpp) as one line a model, every figure as
// the answer has it (the CLI does no arithmetic beyond choosing the column).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "api/what_fits_json.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

std::string cut(const std::string& s, size_t n) {
    // Cut at a character boundary (UTF-8 continuation bytes are 10xxxxxx).
    if (s.size() <= n) return s;
    size_t end = n - 1;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    return s.substr(0, end) + "…";
}
std::string pad(const std::string& s, size_t n) {
    size_t chars = 0;
    for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
    return s + std::string(chars < n ? n - chars : 0, ' ');
}
std::string tps(double v) { return v >= 100 ? printf_text("%.0f", v) : printf_text("%.1f", v); }
std::string range(const json& s, const char* v, const char* lo, const char* hi) {
    if (!s.value("known", false) || s.value(v, 0.0) <= 0) return "—";
    return tps(s.value(v, 0.0)) + " (" + tps(s.value(lo, 0.0)) + "–" + tps(s.value(hi, 0.0)) + ")";
}
std::string gb(double bytes) { return printf_text("%.1f", bytes / 1e9); }

std::string fit_cell(const json& r) {
    const std::string fit = r.value("fit", "");
    if (fit == "full") return "full GPU";
    if (fit == "experts_in_ram") return "experts in RAM (" + std::to_string(r.value("n_cpu_moe", 0)) + ")";
    if (fit == "partial") return "partial -ngl " + std::to_string(r.value("gpu_layers", 0));
    if (fit == "cpu") return "CPU only";
    if (fit == "fits") return "fits";
    if (fit == "unsupported") return "unsupported";
    return "too large";
}

}  // namespace

std::string what_fits_table(const std::string& answer_json) {
    const json a = json::parse(answer_json);
    const std::string intent = a.value("intent", "chat");
    const json& m = a["machine"];
    // The machine as the core names it ("2 × RTX 4090 24GB + 64 GB RAM (89.6 GB/s)": the count, the GPU, the RAM).
    std::string out = "What can I run? " + m.value("text", std::string("your machine")) + "; " +
                      intent + (intent == "chat" ? " on " + a.value("runtime", std::string()) : "") + ", " + a.value("context_text", "") + "\n";
    out += std::to_string(a.value("count", 0)) + " of " + std::to_string(a.value("considered", 0)) + " models listed, " +
           std::to_string(a.value("runnable", 0)) + " run; sorted by " + a.value("sort", "") + ".\n";
    for (const auto& s : a["filter_steps"]) out += "  filter " + s.get<std::string>() + "\n";
    for (const auto& e : a["config_errors"]) out += "  config " + e.value("message", std::string()) + "\n";
    if (!a["empty"].is_null()) return out + a["empty"].value("message", std::string()) + "\n";
    const bool chat = intent == "chat", serve = intent == "serve";
    out += "\n" + pad("Model", 30) + pad("Params", 10) + pad(chat || serve ? "Format" : "Mode", 16) + pad("Fit", 22) + pad("GPU GB", 14) +
           (chat ? pad("RAM GB", 13) + pad("Decode tok/s", 20) + "Prefill tok/s"
                 : serve ? pad("tok/s per user", 22) + "tok/s all users" : std::string("train tok/s")) + "\n";
    for (const auto& r : a["rows"]) {
        const bool ok = r.value("fit", "") != "unsupported";
        std::string line = pad(cut(r.value("name", std::string()), 29), 30) + pad(r.value("params_total_text", std::string()), 10);
        if (!ok) {
            out += line + "unsupported: " + cut(r["error"].value("message", std::string()), 80) + "\n";
            continue;
        }
        line += pad(cut(chat || serve ? r.value("dtype", std::string()) : r.value("mode", std::string()), 15), 16) + pad(fit_cell(r), 22);
        const json& g = r["gpu"];
        line += pad(g.value("known", false) ? gb(g.value("need_bytes", 0.0)) + "/" + gb(g.value("have_bytes", 0.0)) : "—", 14);
        const json& s = r["speed"];
        if (chat) {
            const json& ram = r["ram"];
            line += pad(ram.value("known", false) ? gb(ram.value("need_bytes", 0.0)) + "/" + gb(ram.value("have_bytes", 0.0))
                                                  : gb(ram.value("need_bytes", 0.0)),
                        13);
            line += pad(range(s, "decode_tps", "decode_low", "decode_high"), 20) + range(s, "prefill_tps", "prefill_low", "prefill_high");
        } else if (serve) {
            line += pad(range(s, "decode_tps", "decode_low", "decode_high"), 22) + range(s, "total_tps", "total_low", "total_high");
        } else {
            line += range(s, "total_tps", "total_low", "total_high");
        }
        out += line + "\n";
    }
    return out;
}

}  // namespace vramcalc
