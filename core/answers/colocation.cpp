#include "answers/colocation.hpp"

#include <algorithm>

#include "answers/estimate.hpp"
#include "hardware/gpus.hpp"
#include "serving/serving.hpp"
#include "step/timeline.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// One job's part of the shared GPU: its per-GPU total (every process keeps its own CUDA context) and
// its own test (an engine's pool holding its requests).
ColocationEntry entry(const std::string& label, const Job& job, const Breakdown& b, const ServingInfo& s) {
    ColocationEntry m;
    m.label = label;
    m.engine = engine_name(job.engine);
    const char* field = "";
    m.share = gpu_share(job, field);
    m.bytes = b.total();
    m.own_fits = engine_budgets_device(job) || llama_cpp_like(job) ? s.fits : true;
    m.headroom_bytes = engine_budgets_device(job) ? std::max(0.0, s.kv_pool) - s.kv_needed : 0;
    m.text = gb_text(m.bytes) + (m.share > 0 ? " (" + printf_text("%.2f", m.share) + " of the GPU)" : "");
    m.why = engine_budgets_device(job) ? s.verdict
                                       : std::string(trains(job) ? "the training step's peak" : "weights, working set and KV") +
                                             " for batch " + std::to_string(job.batch) + " × " + std::to_string(job.seq) + " tokens";
    return m;
}

}  // namespace

ColocationAnswer colocation_answer(const Job& job, const Estimate& main) {
    ColocationAnswer a;
    if (job.machine_jobs.empty()) return a;
    a.active = true;
    a.jobs.push_back(entry("this job", job, main.breakdown, main.serving));
    // Each other job's step on the shared GPU (no GPU table: the shared GPU is the question).
    for (const MachineJob& mj : job.machine_jobs) {
        const Step s = run_step(make_plan(*mj.model, *mj.job), resolve_layout(mj.model->config, *mj.job), true);
        a.jobs.push_back(entry(mj.label, *mj.job, s.breakdown, s.serving));
    }
    for (const ColocationEntry& m : a.jobs) a.total_bytes += m.bytes, a.shares += m.share;
    a.capacity_bytes = device_bytes(job);
    a.free_bytes = a.capacity_bytes - a.total_bytes;
    bool each = true;
    for (const ColocationEntry& m : a.jobs) each = each && m.own_fits;
    const std::string n = std::to_string(a.jobs.size()) + " jobs";
    const std::string gpu = job.device_gib > 0 ? "GPU of " + capacity_text(a.capacity_bytes) : job.gpu ? job.gpu->name : "GPU";
    if (a.capacity_bytes <= 0) {
        a.verdict = n + " need " + gb_text(a.total_bytes) + " together; choose your GPU for a verdict";
        return a;
    }
    a.fits = each && a.total_bytes <= a.capacity_bytes;
    if (a.fits)
        a.verdict = "✓ " + n + " fit your " + gpu + ": " + gb_text(a.total_bytes) + " of " + gb_text(a.capacity_bytes) + ", " +
                    gb_text(a.free_bytes) + " free";
    else if (a.total_bytes > a.capacity_bytes)
        a.verdict = "✗ " + n + " need " + gb_text(a.total_bytes) + " together on your " + gpu + " of " + gb_text(a.capacity_bytes) +
                    ", " + gb_text(-a.free_bytes) + " too much";
    else
        a.verdict = "✗ " + n + " fit your " + gpu + " together (" + gb_text(a.total_bytes) +
                    "), but one engine's pool does not hold its requests: see each job";
    return a;
}

}  // namespace vramcalc
