// A model served to N users on vLLM or SGLang, or fine-tuned with LoRA / QLoRA, on the user's GPUs: each
// candidate (the published checkpoint and its FP8 / AWQ / GPTQ variants; LoRA then QLoRA), the first that the
// engine's own test or the training step's peak lets fit, and that candidate's single-model answer: the
// estimate's memory (answers/inverse.cpp fits_device, the step) and the cluster planner's speed for it.
#include <nlohmann/json.hpp>

#include "answers/inverse.hpp"
#include "answers/views.hpp"
#include "cluster/answer_parts.hpp"
#include "cluster/calibration.hpp"
#include "cluster/cluster.hpp"
#include "local/local.hpp"
#include "memory/states.hpp"
#include "serving/serving.hpp"
#include "step/timeline.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"
#include "whatfits/rows.hpp"

namespace vramcalc {
namespace {

// The planner's request for the row's job on the user's GPU (as `--gpu ID --plan` reads it); false when the
// GPU is given only by its memory (no catalog figures to time it with).
bool planner_request(const Job& j, ClusterRequest& r) {
    if (!j.gpu) return false;
    r = parse_cluster(nlohmann::json{{"gpu", j.gpu->id}}, j);
    return true;
}

// The row's memory: the fullest GPU's total against the GPU.
void memory_of(FitRow& row, const Job& j, double total) {
    const double have = device_bytes(j);
    row.gpu = pool_of(true, total, have, gb_text(total) + " of " + gb_text(have) + " per GPU");
    row.gpus = j.gpus;
}

// vLLM / SGLang candidates: the checkpoint as published (dtype auto: its quantization_config, else BF16), then
// each smaller variant people serve: FP8 (vllm serve --quantization fp8, or an FP8 checkpoint), then the 4-bit
// AWQ and GPTQ checkpoints (group 128).
std::vector<const NumberFormat*> serve_candidates(const Model& m) {
    const double shipped = m.config.quant.format ? m.config.quant.format->bits : 16;
    std::vector<const NumberFormat*> out = {nullptr};  // null: auto
    for (FormatId f : {FormatId::Fp8, FormatId::Awq, FormatId::Gptq})
        if (format(f).bits < shipped - 0.5) out.push_back(&format(f));
    return out;
}

}  // namespace

FitRow serve_row(const ListedModel& lm, const FitRequest& r) {
    const Model& m = *lm.model;
    FitRow row = row_for(lm, r, r.job);
    const Job base = row.job;
    const std::vector<const NumberFormat*> candidates = serve_candidates(m);
    for (const NumberFormat* f : candidates) row.candidates.push_back(f ? f->name : "auto");
    auto at = [&](const NumberFormat* f) {
        Job j = base;
        if (f) j.dtype = f, j.dtype_auto = false;
        return j;
    };
    size_t chosen = candidates.size() - 1;
    bool fits = false;
    for (size_t i = 0; i < candidates.size() && !fits; ++i)
        if (fits_device(m, at(candidates[i]))) chosen = i, fits = true;
    row.job = at(candidates[chosen]);
    const Job& j = row.job;
    const Plan plan = make_plan(m, j);
    const Layout layout = resolve_layout(m.config, j);
    const Step step = run_step(plan, layout, false);
    row.dtype = candidates[chosen] ? candidates[chosen]->name : "auto";
    row.format_label = plan.shipped && j.dtype_auto ? plan.shipped->scheme : plan.weights.label;
    row.weights_bytes = base_weights_bytes(plan, nullptr);
    row.runs = fits;
    row.status = fits ? "fits" : "no";
    row.symbol = fits ? "✓" : "✗";
    row.fit = fits ? "fits" : "too_large";
    memory_of(row, j, step.breakdown.total());
    const ServingView view = serving_view(j, step.serving);
    row.fit_text = view.detail;
    row.verdict = row.symbol + " " + view.text;
    row.layers = m.config.layers;
    row.command = launch_command(plan, layout, "").text;
    ClusterRequest cr;
    try {
        if (!fits || !planner_request(j, cr)) return row;  // a row that does not fit has no speed to list
        const ServeResult s = serve(m, j, cr);
        const RateRange rr = serving_range();
        row.speed_known = s.tokens_per_s_per_seq > 0;
        row.decode_tps = s.tokens_per_s_per_seq;
        const Ranged seq = rate_range(s.tokens_per_s_per_seq, rr), all = rate_range(s.tokens_per_s_replica, rr);
        row.decode_low = seq.lo, row.decode_high = seq.hi;
        row.total_tps = all.v, row.total_low = all.lo, row.total_high = all.hi;
        row.ttft_s = s.ttft_s;
        if (row.speed_known)
            row.speed_text = fixed_text(row.decode_tps, 1) + " tokens/s per user (" + fixed_text(row.decode_low, 1) + " – " +
                             fixed_text(row.decode_high, 1) + "), " + grouped_text(row.total_tps) + " tokens/s for " +
                             std::to_string(cr.concurrency) + " users";
    } catch (const InputError& e) {
        row.speed_text = std::string("not timed: ") + e.what();  // the memory answer stands
    }
    return row;
}

FitRow finetune_row(const ListedModel& lm, const FitRequest& r) {
    const Model& m = *lm.model;
    FitRow row = row_for(lm, r, r.modes.front());
    // LoRA on the 16-bit base first, then QLoRA on an NF4 base (each mode read once, core/api/what_fits_json.cpp).
    std::vector<Job> modes;
    for (const Job& mode : r.modes) {
        Job j = mode;
        j.seq = row.job.seq;
        modes.push_back(j);
        row.candidates.push_back(mode_name(j.mode));
    }
    size_t chosen = modes.size() - 1;
    bool fits = false;
    double total = 0;
    for (size_t i = 0; i < modes.size() && !fits; ++i)
        if (fits_device(m, modes[i], &total)) chosen = i, fits = true;
    row.job = modes[chosen];
    const Job& j = row.job;
    if (!fits) total = compute_breakdown(m, j).total();
    const Plan plan = make_plan(m, j);
    row.mode = mode_name(j.mode);
    row.dtype = j.mode == Mode::QLoRA ? "nf4" : j.dtype->name;
    row.format_label = j.mode == Mode::QLoRA ? "NF4 base + LoRA (QLoRA)" : std::string(j.dtype->label) + " base + LoRA";
    row.weights_bytes = base_weights_bytes(plan, nullptr);
    row.runs = fits;
    row.status = fits ? "fits" : "no";
    row.symbol = fits ? "✓" : "✗";
    row.fit = fits ? "fits" : "too_large";
    memory_of(row, j, total);
    row.fit_text = std::string(mode_name(j.mode)) + " at batch " + std::to_string(j.batch) + " × " + grouped_text(static_cast<double>(j.seq)) +
                   " tokens: " + row.gpu.text;
    row.verdict = row.symbol + " " + row.fit_text;
    row.layers = m.config.layers;
    ClusterRequest cr;
    try {
        if (!fits || !planner_request(j, cr)) return row;
        const TrainStep t = timed_training(m, j, cr, nullptr, nullptr);
        const RateRange rr = training_range();
        row.speed_known = t.valid && t.tokens_per_s > 0;
        const Ranged rate = rate_range(t.tokens_per_s, rr);
        row.total_tps = rate.v, row.total_low = rate.lo, row.total_high = rate.hi;
        if (row.speed_known)
            row.speed_text = grouped_text(row.total_tps) + " tokens/s trained (" + grouped_text(row.total_low) + " – " +
                             grouped_text(row.total_high) + ")";
    } catch (const InputError& e) {
        row.speed_text = std::string("not timed: ") + e.what();
    }
    return row;
}

}  // namespace vramcalc
