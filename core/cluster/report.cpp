#include "cluster/report.hpp"

#include <nlohmann/json.hpp>

#include "hardware/gpus.hpp"
#include "cluster/text.hpp"
#include "text/units.hpp"

namespace vramcalc {

std::string format_cluster_report(const std::string& answer_json) {
    const nlohmann::json a = nlohmann::json::parse(answer_json);
    const auto& hw = a["hardware"];
    std::string out = "Cluster: " + hw["nodes_text"].get<std::string>() + "\n";
    out += "  GPU: " + hw["gpu"]["peak_text"].get<std::string>() + ", " + hw["gpu"]["memory_bw_text"].get<std::string>() +
           ", " + hw["gpu"]["usable_text"].get<std::string>() + " usable; " + hw["gpu"]["link_text"].get<std::string>() + "\n";
    out += "  Between nodes: " + hw["fabric"]["text"].get<std::string>() + "\n";
    out += "Assumptions:";
    for (const auto& row : a["assumptions"]) out += " " + row["text"].get<std::string>() + ";";
    out += "\n\n";
    if (a["workload"] == "train") {
        const auto& t = a["train"];
        out += "Training step (" + t["layout"]["text"].get<std::string>() + ")\n";
        out += "  " + t["tokens_per_step_text"].get<std::string>() + " per step, " + t["flops_text"].get<std::string>() + "\n";
        for (const auto& term : t["terms"]) {
            std::string line = "  " + term["label"].get<std::string>();
            line.resize(std::max<size_t>(line.size() + 1, 52), ' ');
            out += line + term["exposed_text"].get<std::string>() + " exposed (" + term["time_text"].get<std::string>() +
                   " in all, " + term["share_text"].get<std::string>() + " of the step)\n";
        }
        if (t.contains("ops")) {
            out += "  Compute by op (" + t["precision"].get<std::string>() + ", " + t["schedule"].get<std::string>() + "):\n";
            for (const auto& op : t["ops"]) {
                std::string line = "    " + op["label"].get<std::string>();
                line.resize(std::max<size_t>(line.size() + 1, 52), ' ');
                out += line + op["time_text"].get<std::string>() + " (" + op["share_text"].get<std::string>() + ")\n";
            }
        }
        out += "  Step: " + t["step_text"].get<std::string>() + "; " + t["tokens_per_s_text"].get<std::string>() + ", " +
               t["tokens_per_s_per_gpu_text"].get<std::string>() + "; " + t["mfu_text"].get<std::string>() + ", " +
               t["hfu_text"].get<std::string>() + "\n";
        out += "  " + t["bound_text"].get<std::string>() + "\n";
        out += "  Memory: " + t["memory_text"].get<std::string>() + ", " + t["fits_text"].get<std::string>() + "\n";
        if (t.contains("budget")) {
            const auto& b = t["budget"];
            out += "  Budget: " + b["tokens_text"].get<std::string>() + " in " + b["time_text"].get<std::string>() + ", " +
                   b["gpu_hours_text"].get<std::string>() + (b.contains("cost_text") ? ", " + b["cost_text"].get<std::string>() : "") + "\n";
        }
        const auto& rec = a["recommendation"];
        if (rec.contains("chosen_why") && !rec["chosen_why"].get<std::string>().empty())
            out += "  " + rec["chosen_why"].get<std::string>() + "\n";
        if (rec.contains("best") && rec["best"].is_object()) {
            out += "\nRecommended layout (" + std::to_string(rec["considered"].get<int64_t>()) + " considered): " +
                   rec["best"]["layout_text"].get<std::string>() + ", " + rec["best"]["tokens_per_s_per_gpu_text"].get<std::string>() +
                   ", " + rec["best"]["memory_text"].get<std::string>() + " per GPU\n";
            out += "  " + rec["why"].get<std::string>() + "\n";
        } else if (rec.contains("why")) {
            out += "\nNo layout recommended: " + rec["why"].get<std::string>() + "\n";
        }
    } else {
        const auto& s = a["serve"];
        out += "Serving (" + s["layout"]["text"].get<std::string>() + "), " + s["memory_text"].get<std::string>() +
               (s["fits"].get<bool>() ? "" : " (does not fit)") + "\n";
        out += "  " + s["read_text"].get<std::string>() + "; " + s["token_text"].get<std::string>() + "\n";
        out += "  " + s["kv_text"].get<std::string>() + "; " + s["kernel_text"].get<std::string>() + "\n";
        out += "  Decode: " + s["tokens_per_s_per_seq_text"].get<std::string>() + ", " + s["tokens_per_s_replica_text"].get<std::string>() +
               ", " + s["tokens_per_s_cluster_text"].get<std::string>() + "; " + s["tpot_text"].get<std::string>() + "\n";
        out += "  Prefill: " + s["prefill_text"].get<std::string>() + "; " + s["ttft_text"].get<std::string>() + "\n";
        if (!s["layout_why"].get<std::string>().empty()) out += "  " + s["layout_why"].get<std::string>() + "\n";
        out += "  " + s["bound_text"].get<std::string>() + "\n";
    }
    for (const auto& n : a["notes"]) out += "Note: " + n.get<std::string>() + "\n";
    return out;
}

std::string format_gpu_list() {
    std::string out;
    for (const Gpu& g : gpu_catalog())
        out += std::string(g.id) + "\t" + g.name + "\t" + printf_text("%.0f", g.tflops_bf16) + " TFLOPS BF16\t" +
               number_text(g.memory_tbps) + " TB/s\t" + g.link + "\n";
    for (const Fabric& f : fabric_catalog()) out += std::string(f.id) + "\t" + f.name + "\n";
    return out;
}

}  // namespace vramcalc
