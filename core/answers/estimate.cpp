#include "answers/estimate.hpp"

#include "answers/fit.hpp"
#include "answers/inverse.hpp"
#include "answers/notes.hpp"
#include "answers/verdict.hpp"
#include "answers/views.hpp"
#include "serving/serving.hpp"
#include "memory/states.hpp"
#include "step/timeline.hpp"
#include "text/units.hpp"

namespace vramcalc {

Estimate estimate(const Model& m, const Job& asked, bool explain) {
    const UnitScope units(asked.units);  // every text below in the job's unit
    // A local runtime chooses its own layout before it loads (llama.cpp's --fit, Ollama's context tier and
    // scheduler): the estimate is of the job as it runs (core/local/fit.cpp).
    FitReport fit;
    const Job job = runs_locally(asked) ? runtime_job(m, asked, fit) : asked;
    Estimate e;
    e.context = job.seq;
    e.n_cpu_moe = job.experts_on_cpu ? m.config.layers : job.n_cpu_moe;
    e.gpu_layers = job.n_gpu_layers;
    e.layout = resolve_layout(m.config, job);
    const Plan plan = make_plan(m, job);
    e.params = plan.m.params;  // with the job's head
    e.trainable_params = plan.trainable;
    const Step step = run_step(plan, e.layout, explain);
    e.breakdown = step.breakdown;
    e.timeline = step.timeline;
    e.allocated_bytes = step.allocated;
    e.reserved_bytes = step.reserved;
    e.device_bytes = step.device;
    e.cpu_bytes = step.cpu;
    e.steady_bytes = step.steady;
    e.share = step.share;
    e.activations_saved_bytes = step.saved;
    e.serving = step.serving;
    // serving.fits answers for the job as asked: when the runtime had to move layers or experts to RAM
    // (llama.cpp's --fit, Ollama's scheduler) it did not fit as asked; local says how it runs instead.
    if (fit.ran && (fit.n_cpu_moe > 0 || fit.gpu_layers >= 0)) {
        e.serving.fits = false;
        e.serving.verdict = "does not fit the GPU as asked; " + fit.text;
    }
    e.post = step.post;
    if (trains(job) && m.config.family != Family::Explicit) {
        // A post-training job's block is its policy's, at the sequence the trainer runs (core/posttrain/).
        const Job policy = post_training(job.post) ? policy_job(job) : job;
        e.layer = kept_block(make_plan(m, policy), e.layout, m.config.is_moe() && m.config.dense_layers == 0);
    }
    e.model_states_bytes = weights_term(plan, e.layout, step.share, nullptr) + gradients_term(plan, e.layout, step.share, nullptr) +
                           optimizer_term(plan, e.layout, step.share, nullptr);
    e.weight_format_label = plan.exact ? "as stored (" + plan.m.exact.source + ")" : plan.shipped ? plan.shipped->scheme : plan.weights.label;
    e.weights_source = plan.exact ? WeightsSource::Exact : plan.shipped ? WeightsSource::QuantizationConfig : WeightsSource::Job;
    e.weights_reference_bytes = base_weights_bytes(plan, nullptr);
    // GPUs that hold one full copy of the model between them: data-parallel
    // replicas each hold their own, so the ratio is per replica.
    const double copies = static_cast<double>(e.layout.tp * e.layout.pp);
    const double replica = e.layout.zero > 0 ? static_cast<double>(e.layout.gpus) : copies;
    e.ratio_to_weights = e.breakdown.total() * replica / e.weights_reference_bytes;
    if (explain) e.notes = notes_for(plan, e);
    e.fits = fit_gpus(plan, e.layout, e.breakdown.total());
    if (explain) {
        // In the user's words: one verdict for their GPUs, the training views, the serving view.
        e.training_views = training_views(plan, e);
        if (!trains(job)) e.serving_view = serving_view(job, e.serving, &e.breakdown);
        e.verdict = verdict_for(plan, e);
        e.command = launch_command(plan, e.layout, "");
        if (runs_locally(job)) {
            // Both pools decide a local run: its verdict replaces the GPU-only one.
            e.local = local_answer(plan, e.layout, e.breakdown, e.serving, fit);
            if (device_bytes(job) > 0 || job.machine.cpu_only) {
                e.verdict.status = e.local.status;
                e.verdict.symbol = e.local.symbol;
                e.verdict.text = e.local.verdict;
            }
        }
        e.post_limits = post_limits(m, job);  // core/answers/inverse.cpp
        e.colocation = colocation_answer(job, e);   // core/answers/colocation.cpp
    }
    return e;
}

}  // namespace vramcalc
