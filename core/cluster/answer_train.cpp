// The planner's training answer: the layout timed (the verdict's first), its step term by term and op by op,
// the budget, the recommendation; every figure with its cross-validated range.
#include <algorithm>

#include "cluster/answer_parts.hpp"
#include "cluster/calibration.hpp"
#include "cluster/text.hpp"
#include "job/layout.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

std::string n_text(int64_t v) { return number_text(static_cast<double>(v)); }

std::string bound_text(const TrainStep& s) {
    const double share = [&] {
        if (s.bound_key == "compute") return s.compute_s / s.step_s;
        if (s.bound_key == "bubble") return s.bubble_s / s.step_s;
        for (const auto& c : s.comms)
            if (s.bound_key == c.key) return c.exposed_s / s.step_s;
        return 0.0;
    }();
    if (s.bound_key == "compute") return "compute-bound: the math takes " + percent_text(share) + " of the step";
    if (s.bound_key == "bubble") return "pipeline-bound: the bubble takes " + percent_text(share) + " of the step; add micro-batches";
    for (const auto& c : s.comms)
        if (s.bound_key == c.key)
            return "communication-bound: " + c.label + " over " + c.link + " takes " + percent_text(share) + " of the step";
    return "";
}

void write_summary(JsonWriter& w, const TrainStep& s) {
    const Ranged rate = rate_range(s.tokens_per_s_per_gpu, training_range());
    const Ranged step = time_range(s.step_s, training_range());
    const Ranged mfu = rate_range(s.mfu, training_range());
    w.begin_object().field("layout_text", layout_text(s.layout)).field("step_s", s.step_s);
    write_range(w, "step_range_s", step);
    w.field("step_text", duration_range_text(step.v, step.lo, step.hi));
    w.field("tokens_per_s_per_gpu", s.tokens_per_s_per_gpu);
    write_range(w, "tokens_per_s_per_gpu_range", rate);
    w.field("tokens_per_s_per_gpu_text", rate_range_text(rate.v, rate.lo, rate.hi, "tok/s"));
    w.field("mfu", s.mfu).field("mfu_text", percent_range_text(mfu.v, mfu.lo, mfu.hi)).field("memory_bytes", s.memory_bytes);
    w.field("memory_text", gb_text(s.memory_bytes)).field("fits", s.fits).field("bound", s.bound_key);
    w.field("bound_text", bound_text(s)).end_object();
}

void write_step(JsonWriter& w, const TrainStep& s, const ClusterRequest& r) {
    const Parallel& p = s.layout;
    const RateRange& rr = training_range();
    w.key("train").begin_object();
    w.key("layout").begin_object().field("tp", p.tp).field("pp", p.pp).field("cp", p.cp).field("dp", p.dp).field("ep", p.ep);
    w.field("zero", p.zero).field("microbatches", p.microbatches).field("virtual_stages", p.virtual_stages);
    w.field("text", layout_text(p)).end_object();
    w.field("tokens_per_step", s.tokens_per_step).field("tokens_per_step_text", tokens_text(s.tokens_per_step));
    w.field("model_flops_per_token", s.model_flops_per_token).field("hardware_flops_per_token", s.hardware_flops_per_token);
    w.field("flops_text", flop_text(s.model_flops_per_token) + " per token (6·N + attention)" +
                              (s.hardware_flops_per_token > s.model_flops_per_token
                                   ? ", " + flop_text(s.hardware_flops_per_token) + " executed with recomputation"
                                   : ""));
    const Ranged step = time_range(s.step_s, rr), rate = rate_range(s.tokens_per_s, rr);
    const Ranged per_gpu = rate_range(s.tokens_per_s_per_gpu, rr), mfu = rate_range(s.mfu, rr), hfu = rate_range(s.hfu, rr);
    w.field("step_s", s.step_s);
    write_range(w, "step_range_s", step);
    w.field("step_text", duration_range_text(step.v, step.lo, step.hi));
    w.field("tokens_per_s", s.tokens_per_s);
    write_range(w, "tokens_per_s_range", rate);
    w.field("tokens_per_s_text", rate_range_text(rate.v, rate.lo, rate.hi, "tok/s"));
    w.field("tokens_per_s_per_gpu", s.tokens_per_s_per_gpu);
    write_range(w, "tokens_per_s_per_gpu_range", per_gpu);
    w.field("tokens_per_s_per_gpu_text", rate_range_text(per_gpu.v, per_gpu.lo, per_gpu.hi, "tok/s per GPU"));
    w.field("mfu", s.mfu);
    write_range(w, "mfu_range", mfu);
    w.field("mfu_text", percent_range_text(mfu.v, mfu.lo, mfu.hi) + " MFU").field("hfu", s.hfu);
    write_range(w, "hfu_range", hfu);
    w.field("hfu_text", percent_range_text(hfu.v, hfu.lo, hfu.hi) + " HFU");
    w.field("range_text", range_note(rr, "training"));
    w.key("terms").begin_array();
    auto term = [&](const std::string& key, const std::string& label, const std::string& link, double time, double exposed, const std::string& why) {
        w.begin_object().field("key", key).field("label", label).field("link", link).field("time_s", time).field("exposed_s", exposed);
        w.field("share", exposed / s.step_s).field("time_text", duration_text(time)).field("exposed_text", duration_text(exposed));
        w.field("share_text", percent_text(exposed / s.step_s)).field("why", why).end_object();
    };
    std::string biggest;
    double most = 0;
    for (const Op& op : s.ops)
        if (op.time_s > most) most = op.time_s, biggest = op.label;
    term("compute", "Compute", "", s.compute_s, s.compute_s,
         r.assume.compute_efficiency > 0
             ? "every matmul and attention FLOP at " + percent_text(r.assume.compute_efficiency) + " of its peak (the override)"
             : "per-op roofline at sustained rates over " + n_text(static_cast<int64_t>(s.ops.size())) + " ops (below); the largest: " +
                   biggest + (s.slowest < 1 ? "; the slowest of " + n_text(p.gpus()) + " GPUs sets the pace (" +
                                                  percent_text(1 - s.slowest) + " below one alone)"
                                            : ""));
    if (s.bubble_s > 0) term("bubble", "Pipeline bubble", "", s.bubble_s, s.bubble_s, s.bubble_why);
    for (const auto& c : s.comms) term(c.key, c.label, c.link, c.time_s, c.exposed_s, c.why + ", " + gb_text(c.bytes) + " per GPU per step");
    if (s.interference_s > 0)
        term("interference", "Compute slowed by overlapped communication", "", s.interference_s, s.interference_s,
             duration_text(s.overlapped_s) + " of communication hidden under compute, which runs " + percent_text(r.assume.interference) +
                 " slower meanwhile (Lee et al. 2025, arXiv 2507.03114: 18.9 % on average)");
    if (s.gaps_s > 0)
        term("gaps", "Kernel gaps (fitted)", "", s.gaps_s, s.gaps_s,
             percent_text(r.assume.gap_fraction) + " of the kernel time idle between kernels, fitted for " +
                 gap_family_name(gap_family(r.framework, r.fused)) + " (cluster/calibration.cpp)");
    w.end_array();
    w.key("ops").begin_array();
    for (const Op& op : s.ops) {
        w.begin_object().field("key", op.key).field("label", op.label).field("time_s", op.time_s);
        w.field("share", op.time_s / s.step_s).field("time_text", duration_text(op.time_s));
        w.field("share_text", percent_text(op.time_s / s.step_s)).field("flops", op.flops).field("bytes", op.bytes);
        w.field("why", op.why).end_object();
    }
    w.end_array();
    w.field("schedule", s.schedule);
    w.field("precision", r.recipe ? r.recipe->label : "BF16");
    w.field("bound", s.bound_key).field("bound_text", bound_text(s));
    w.field("memory_bytes", s.memory_bytes).field("memory_text", gb_text(s.memory_bytes) + " per GPU").field("fits", s.fits);
    w.field("fits_text", s.fits ? "fits in " + capacity_text(gpu_bytes(r.gpu)) : "does not fit in " + capacity_text(gpu_bytes(r.gpu)));
    if (r.token_budget > 0) {
        const double time = r.token_budget / s.tokens_per_s;
        const double gpu_hours = time * static_cast<double>(p.gpus()) / 3600;
        const Ranged t = time_range(time, rr), h = time_range(gpu_hours, rr);
        w.key("budget").begin_object().field("tokens", r.token_budget).field("tokens_text", tokens_text(r.token_budget));
        w.field("time_s", time);
        write_range(w, "time_range_s", t);
        w.field("time_text", duration_range_text(t.v, t.lo, t.hi)).field("gpu_hours", gpu_hours);
        write_range(w, "gpu_hours_range", h);
        w.field("gpu_hours_text", count_range_text(h.v, h.lo, h.hi) + " GPU-hours");
        if (r.price_per_gpu_hour > 0) {
            const double price = r.price_per_gpu_hour;
            w.field("cost", gpu_hours * price);
            write_range(w, "cost_range", {h.v * price, h.lo * price, h.hi * price});
            w.field("cost_amount_text", money_range_text(h.v * price, h.lo * price, h.hi * price));
            w.field("cost_text", money_range_text(h.v * price, h.lo * price, h.hi * price) + " at " + money_text(price) + " per GPU-hour");
        }
        w.end_object();
    }
    w.end_object();
}

// Why the best beats the runner-up: the time per token component that grows most.
std::string runner_up_why(const TrainStep& best, const TrainStep& next) {
    const double per_b = 1 / best.tokens_per_step, per_n = 1 / next.tokens_per_step;
    std::string label = "Compute";
    double worst = next.compute_s * per_n - best.compute_s * per_b;
    auto consider = [&](const std::string& l, double nt, double bt) {
        if (nt * per_n - bt * per_b > worst) worst = nt * per_n - bt * per_b, label = l;
    };
    consider("the pipeline bubble", next.bubble_s, best.bubble_s);
    for (const auto& c : next.comms) {
        double bt = 0;
        for (const auto& d : best.comms)
            if (c.key == d.key) bt = d.exposed_s;
        consider(c.label + " over " + c.link, c.exposed_s, bt);
    }
    const double slower = best.tokens_per_s / next.tokens_per_s - 1;
    return "Runner-up " + layout_text(next.layout) + " is " + percent_text(slower) + " slower: " + label + " costs " +
           duration_text(worst * best.tokens_per_step) + " more per " + tokens_text(best.tokens_per_step) + ".";
}

bool same_layout(const Parallel& a, const Parallel& b) {
    return a.tp == b.tp && a.pp == b.pp && a.cp == b.cp && a.dp == b.dp && a.ep == b.ep && a.zero == b.zero &&
           a.virtual_stages == b.virtual_stages;
}

// The layout the verdict judges: the job as the estimate lays it out over the cluster's GPUs (its TP, PP, CP and
// EP, data parallel over the rest, its ZeRO stage).
bool verdict_layout(const Model& model, const Job& job, const ClusterRequest& r, Parallel& p) {
    Job j = job;
    j.gpus = r.gpus;
    Layout l;
    try {
        l = resolve_layout(model.config, j);
    } catch (const InputError&) {
        return false;
    }
    p.tp = l.tp, p.pp = l.pp, p.cp = l.cp, p.dp = l.dp, p.ep = std::max<int64_t>(1, job.ep), p.zero = l.zero;
    const int64_t global = r.global_batch > 0 ? r.global_batch : r.gpus * job.batch;
    p.microbatches = std::max<int64_t>(1, (global + p.dp * job.batch - 1) / (p.dp * job.batch));
    return true;
}

}  // namespace

TrainStep timed_training(const Model& model, const Job& job, const ClusterRequest& r, const std::vector<TrainStep>* ranked_given,
                         std::string* why) {
    // The layout timed: the one the request gives; else the verdict's when it fits (so the planner never times a
    // layout the verdict rejects while the verdict's own holds), else the fastest that fits.
    if (!r.auto_layout) return train_step(model, job, r, checked_layout(model, job, r));
    Parallel vp;
    const bool has_verdict = verdict_layout(model, job, r, vp);
    const TrainStep verdict = has_verdict ? train_step(model, job, r, vp) : TrainStep{};
    if (has_verdict && verdict.fits && !why) return verdict;  // timed whatever the ranking, which only explains it
    std::vector<TrainStep> own;
    if (!ranked_given) own = rank_layouts(model, job, r);
    const std::vector<TrainStep>& ranked = ranked_given ? *ranked_given : own;
    const bool any = !ranked.empty() && ranked.front().fits;
    if (ranked.empty() && !has_verdict) throw InputError("cluster.gpus", "no layout splits this model over " + n_text(r.gpus) + " GPUs");
    if (has_verdict && (verdict.fits || !any)) {
        if (why && any && !same_layout(ranked.front().layout, verdict.layout) && verdict.fits)
            *why = "Timed as the estimate lays the job out (" + layout_text(verdict.layout) + "). " + layout_text(ranked.front().layout) +
                   " also fits and is " + percent_text(ranked.front().tokens_per_s / verdict.tokens_per_s - 1) + " faster per GPU.";
        return verdict;
    }
    if (why && has_verdict)
        *why = "As the estimate lays the job out (" + layout_text(verdict.layout) + ") it needs " + gb_text(verdict.memory_bytes) +
               " per GPU and does not fit; timed the fastest layout that fits, " + layout_text(ranked.front().layout) + ".";
    return ranked.front();  // the fastest that fits (the least memory-hungry when none does)
}

void write_training(JsonWriter& w, const Model& model, const Job& job, const ClusterRequest& r, std::vector<std::string>& notes) {
    const std::vector<TrainStep> ranked = rank_layouts(model, job, r);
    const bool any = !ranked.empty() && ranked.front().fits;
    std::string chosen_why;
    const TrainStep chosen = timed_training(model, job, r, &ranked, &chosen_why);
    write_step(w, chosen, r);
    // The recommender only returns layouts that fit (the verdict's own per-GPU memory); when none
    // does, best is null and the least memory-hungry layout is shown, flagged, with what to change.
    w.key("recommendation").begin_object().field("considered", static_cast<int64_t>(ranked.size()));
    int64_t fitting = 0;
    for (const auto& t : ranked) fitting += t.fits ? 1 : 0;
    w.field("fitting", fitting);
    w.key("best");
    if (any) write_summary(w, ranked.front());
    else w.raw("null");
    const bool runner = ranked.size() > 1 && ranked[1].fits;
    w.key("runner_up");
    if (runner) write_summary(w, ranked[1]);
    else w.raw("null");
    if (!any && !ranked.empty()) {  // none fits: the recommender sorted them least memory first
        w.key("least_memory");
        write_summary(w, ranked.front());
    }
    w.field("why", ranked.empty() ? "No layout splits this model over " + n_text(r.gpus) + " GPUs."
                   : !any ? "No layout fits in memory on " + n_text(r.gpus) + " × " + r.gpu.name + "; the least memory-hungry still needs " +
                                gb_text(ranked.front().memory_bytes) + " per GPU. Add GPUs, ZeRO-3 or checkpointing."
                   : runner ? runner_up_why(ranked.front(), ranked[1]) : "No other layout fits in memory.");
    w.field("chosen_why", chosen_why);
    w.key("candidates").begin_array();
    for (size_t i = 0; i < std::min<size_t>(8, ranked.size()); ++i)
        if (ranked[i].fits) write_summary(w, ranked[i]);
    w.end_array();
    w.end_object();
    if (!chosen.fits)
        notes.push_back("This layout does not fit: " + gb_text(chosen.memory_bytes) + " per GPU against " +
                        capacity_text(gpu_bytes(r.gpu)) + "; its times are what it would take if it did.");
    notes.push_back("Step time is a model, not a measurement: each op at the rate this GPU sustains under a whole step's power "
                    "draw (GEMMs by shape, attention kernels, streaming ops), the slowest GPU setting the pace, plus the "
                    "schedule's pipeline bubble, each collective at the link it crosses, the slowdown of compute under "
                    "overlapped communication and the framework's fitted kernel gaps. " + range_note(training_range(), "training"));
    if (model.config.is_moe()) notes.push_back("Mixture of experts: compute follows the active parameters; expert load is taken as balanced.");
}

}  // namespace vramcalc
