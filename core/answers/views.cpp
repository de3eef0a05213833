#include "answers/views.hpp"

#include <algorithm>
#include <cmath>

#include "memory/states.hpp"
#include "serving/serving.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

ViewRow row(const char* key, const char* label, double bytes, std::string why) {
    return {key, label, bytes, gb_text(bytes), std::move(why)};
}

std::string tokens_text(int64_t n) { return grouped_text(static_cast<double>(n)); }

}  // namespace

std::vector<TrainingView> training_views(const Plan& p, const Estimate& e) {
    std::vector<TrainingView> views;
    if (!trains(p.job) || e.timeline.count == 0) return views;
    const Layout& l = e.layout;
    const Share& s = e.share;
    const double W = weights_term(p, l, s, nullptr), G = gradients_term(p, l, s, nullptr), O = optimizer_term(p, l, s, nullptr);
    const double master = master_weights_term(p, l, s);
    const std::string master_why = master > 0 ? "an fp32 copy of every trained weight, 4 bytes per parameter, kept by the optimizer"
                                              : "none: no fp32 copy beside the trained weights in this recipe";

    // The classic count: every model state at once, as after a full backward, and every block's
    // saved activations (with the loss's) as at the end of the forward pass.
    TrainingView classic{"classic", "All model states + activations (the classic count)", {}, 0, "", ""};
    classic.rows.push_back(row("weights", "Weights", W, e.breakdown.why[kWeights]));
    classic.rows.push_back(row("gradients", "Gradients (all of them, as after backward)", G, "one per trained parameter"));
    classic.rows.push_back(row("optimizer_moments", "Optimizer m + v", O - master, "the optimizer's own states"));
    classic.rows.push_back(row("master_weights", "fp32 master weights", master, master_why));
    classic.rows.push_back(row("activations", "Activations saved for backward", e.activations_saved_bytes,
                               "every block's saved tensors and the loss's, at the end of the forward pass"));
    for (const ViewRow& r : classic.rows) classic.total += r.bytes;
    classic.total_text = gb_text(classic.total);
    classic.text = "Model states " + gb_text(W + G + O) + " (weights " + gb_text(W) + ", gradients " + gb_text(G) +
                   ", optimizer m + v " + gb_text(O - master) + (master > 0 ? ", fp32 master " + gb_text(master) : "") +
                   ") + activations " + gb_text(e.activations_saved_bytes) + " = " + classic.total_text +
                   ": every state at once, without overhead, as the classic explanation counts it.";
    views.push_back(std::move(classic));

    // The peak: the step's live tensors at its fullest moment, the optimizer split likewise.
    const Phase& ph = e.timeline.phases[e.timeline.peak];
    const auto& b = e.breakdown.bytes;
    const double live_master = std::min(master, b[kOptimizer]);
    TrainingView peak{"peak", "At the step's peak", {}, 0, "", ""};
    peak.rows.push_back(row("weights", "Weights", b[kWeights], e.breakdown.why[kWeights]));
    peak.rows.push_back(row("gradients", "Gradients (live at the peak)", b[kGradients], e.breakdown.why[kGradients]));
    // The optimizer term holds m + v and the master copy: each row says its own part, its formula ending in its figure.
    const std::string optimizer_why = e.breakdown.why[kOptimizer].empty() ? "the optimizer's own states" : e.breakdown.why[kOptimizer];
    peak.rows.push_back(row("optimizer_moments", "Optimizer m + v", b[kOptimizer] - live_master,
                            live_master > 0 ? "the optimizer term (" + optimizer_why + ") less its fp32 master weights " +
                                                  gb_text(live_master) + " = " + gb_text(b[kOptimizer] - live_master)
                                            : optimizer_why));
    peak.rows.push_back(row("master_weights", "fp32 master weights", live_master,
                            live_master > 0 ? master_why + ": " + gb_text(live_master) + " on this GPU" : master_why));
    peak.rows.push_back(row("activations", "Activations", b[kActivations], e.breakdown.why[kActivations]));
    peak.rows.push_back(row("logits", "Logits and loss", b[kLogits], e.breakdown.why[kLogits]));
    peak.rows.push_back(row("buffers", "Step buffers", b[kBuffers], e.breakdown.why[kBuffers]));
    peak.rows.push_back(row("overhead", "Overhead", b[kOverhead], e.breakdown.why[kOverhead]));
    peak.total = e.breakdown.total();
    peak.total_text = gb_text(peak.total);
    peak.text = std::string("At the step's peak (") + ph.label + "): " + peak.total_text +
                " with overhead; gradients appear during backward while activations are freed, so not every state is live at once.";
    views.push_back(std::move(peak));
    return views;
}

namespace {

// What the users need on each GPU under an engine that sizes a KV pool (vLLM, SGLang): every term of the
// breakdown but the pool (weights, the profile run's activations, CUDA graphs, memory outside torch,
// overhead), and the KV of batch × seq instead of the pool. The breakdown's total is what the engine
// takes (its budget, the pool filling the rest); this is what the question asked for.
void serving_need(const Job& job, const ServingInfo& s, const Breakdown& b, ServingView& v) {
    std::string why;
    double fixed = 0;
    for (int t = 0; t < kTermCount; ++t) {
        if (t == kKvCache || b.bytes[t] <= 0) continue;
        fixed += b.bytes[t];
        why += (why.empty() ? "" : " + ") + std::string(term_label(t)) + " " + gb_text(b.bytes[t]);
    }
    v.need = fixed + s.kv_needed;
    v.need_why = why + " + KV for " + std::to_string(job.batch) + (job.batch == 1 ? " user × " : " users × ") +
                 tokens_text(job.seq) + " tokens " + gb_text(s.kv_needed) + " = " + gb_text(v.need) + " per GPU";
    const char* engine = job.engine == Engine::Sglang ? "SGLang" : "vLLM";
    const double fraction = s.device > 0 ? s.budget / s.device : 0;
    v.engine_text = std::string(engine) + "'s own view: it takes " + printf_text("%.2f", fraction) + " × " + gb_text(s.device) +
                    " = " + gb_text(s.budget) + " of each GPU and fills what its fixed parts leave with a KV pool: " +
                    (s.kv_pool > 0 ? gb_text(s.kv_pool) + ", " + tokens_text(s.pool_tokens) + " tokens"
                                   : std::string("none (the fixed parts take the whole budget)"));
}

}  // namespace

ServingView serving_view(const Job& job, const ServingInfo& s, const Breakdown* b) {
    ServingView v;
    v.pooled = engine_budgets_device(job) && s.device > 0;
    v.users = job.batch;
    v.context = job.seq;
    v.kv_needed = s.kv_needed;
    v.fits = s.fits;
    const std::string need = "needs " + gb_text(s.kv_needed) + " of KV for " + std::to_string(job.batch) +
                             (job.batch == 1 ? " user × " : " users × ") + tokens_text(job.seq) + " tokens";
    if (!v.pooled) {
        v.text = v.detail = need;
        return v;
    }
    v.pool_bytes = std::max(0.0, s.kv_pool);
    v.pool_tokens = s.pool_tokens;
    const double per_user = job.batch > 0 ? s.kv_needed / static_cast<double>(job.batch) : 0;
    v.users_at_context = per_user > 0 ? static_cast<int64_t>(std::floor(v.pool_bytes / per_user + 1e-9)) : 0;
    v.detail = need + "; " +
             (s.kv_pool > 0 ? "the pool holds " + tokens_text(s.pool_tokens) + " tokens in " + gb_text(v.pool_bytes) + " (" +
                                  std::to_string(v.users_at_context) + (v.users_at_context == 1 ? " user" : " users") +
                                  " at " + tokens_text(job.seq) + ")"
                            : "the budget leaves no KV pool (weights and activations take " +
                                  gb_text(s.budget - s.kv_pool) + " of the " + gb_text(s.budget) + " budget)");
    // The KV fits the pool and still it does not: the engine's other tests (serving/vllm.cpp).
    if (!s.fits && s.kv_pool > 0 && s.kv_needed <= s.kv_pool)
        v.detail += s.kv_per_request > s.kv_pool ? " (one request of the max_model_len, " + tokens_text(s.max_model_len) +
                                                     " tokens, needs " + gb_text(s.kv_per_request) + ", more than the pool)"
                                               : " (the CUDA graphs do not fit in what the budget leaves outside it)";
    v.text = v.detail + "; " + (s.fits ? "fits" : "does not fit");
    if (b) serving_need(job, s, *b, v);
    return v;
}

}  // namespace vramcalc
