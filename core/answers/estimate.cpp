#include "answers/estimate.hpp"

#include "answers/fit.hpp"
#include "answers/inverse.hpp"
#include "answers/notes.hpp"
#include "answers/verdict.hpp"
#include "answers/views.hpp"
#include "memory/states.hpp"
#include "step/timeline.hpp"
#include "text/units.hpp"

namespace vramcalc {

Estimate estimate(const Model& m, const Job& job, bool explain) {
    const UnitScope units(job.units);  // every text below in the job's unit
    Estimate e;
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
        if (!trains(job)) e.serving_view = serving_view(job, e.serving);
        e.verdict = verdict_for(plan, e);
        e.post_limits = post_limits(m, job);  // core/answers/inverse.cpp
        e.machine = machine_answer(job, e);   // core/answers/machine.cpp
    }
    return e;
}

}  // namespace vramcalc
