#include "answers/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "answers/fit.hpp"
#include "answers/inverse.hpp"
#include "answers/views.hpp"
#include "hardware/gpus.hpp"
#include "serving/serving.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

std::string count(int64_t n) { return std::to_string(n); }
std::string percent(double share) { return printf_text("%.0f %%", 100 * share); }
bool pooled(const Job& job) { return engine_budgets_device(job); }

// The user's GPU: the catalog entry the job names, else a device of device_gib.
const Gpu* user_gpu(const Job& job) { return job.device_gib > 0 ? nullptr : job.gpu; }

// The GPU table's row for the user's GPU: the custom row for a memory size, else the catalog id's.
const GpuFit* row_for(const Estimate& e, const Job& job) {
    for (const GpuFit& f : e.fits)
        if (job.device_gib > 0 ? f.custom : (!f.custom && job.gpu && std::string(f.id) == job.gpu->id)) return &f;
    return nullptr;
}

// "23.10 GB each (91 %), 2.28 GB free", or on one GPU "23.10 of 25.38 GB (91 %), 2.28 GB free".
std::string use_text(double used, double capacity, int64_t gpus) {
    const std::string each = gpus > 1 ? " on each" : "";
    if (used > capacity) return "needs " + gb_text(used) + each + " against " + gb_text(capacity) + ", " + gb_text(used - capacity) + " too much";
    if (gpus > 1) return gb_text(used) + " each of " + gb_text(capacity) + " (" + percent(used / capacity) + "), " + gb_text(capacity - used) + " free on each";
    return gb_text(used) + " of " + gb_text(capacity) + " (" + percent(used / capacity) + "), " + gb_text(capacity - used) + " free";
}

// "2 × RTX 4090 24GB (ZeRO-3 / FSDP)", "1 × L4 24GB".
std::string gpus_text(int64_t n, const std::string& name, const std::string& layout) {
    return count(n) + " × " + name + (layout.empty() ? "" : " (" + layout + ")");
}

// The per-GPU figure a recommendation or a "needs" clause is judged by at n GPUs of `gpu`
// (null: a device of `capacity`): the used and the capacity it is compared with (the KV and the
// pool for vLLM / SGLang, the per-GPU total and the GPU otherwise), and whether it holds.
struct AtCount {
    bool laid_out = false, fits = false;
    double used = 0, capacity = 0;
    std::string layout;
};
// Engines that size themselves from the device (vLLM, SGLang, llama.cpp / Ollama's split) are
// asked on that device; for the rest the per-GPU total at n GPUs does not depend on which GPU,
// and `totals` keeps it per count (the recommendation tries many GPUs at few counts).
AtCount at_count(const Plan& p, const Layout& chosen, const Gpu* gpu, double capacity, int64_t n,
                 std::map<int64_t, FitAt>* totals = nullptr) {
    AtCount a;
    Layout l;
    if (!fit_layout(p, chosen, n, l)) return a;
    a.laid_out = true;
    a.layout = layout_label(p.job, l);
    if (!pooled(p.job) && !llama_cpp_like(p.job) && !rollout_sized_by_device(p.job.post)) {
        // The GPU table's layout at n (answers/fit.cpp LayoutSearch: an MoE's EP searched), kept per count.
        FitAt f;
        const auto it = totals ? totals->find(n) : decltype(totals->end()){};
        if (totals && it != totals->end()) f = it->second;
        else if (LayoutSearch(p, chosen).at(n, f) && totals) (*totals)[n] = f;
        a.layout = layout_label(p.job, f.layout, f.ep);
        a.used = f.total;
        a.capacity = capacity;
        a.fits = a.used <= capacity;
        return a;
    }
    const Step s = step_on_device(p, gpu, capacity, l);
    a.fits = holds(p, s, capacity);
    if (pooled(p.job)) {
        a.used = s.serving.kv_needed;
        a.capacity = std::max(0.0, s.serving.kv_pool);
    } else {
        a.used = s.breakdown.total();
        a.capacity = capacity;
    }
    return a;
}
double headroom(double used, double capacity) { return capacity > 0 ? (capacity - used) / capacity : -1; }

bool in_pool(const Gpu& g, GpuPool pool, const Job& job) {
    const GpuKind k = gpu_kind(g);
    if (k == GpuKind::Other || !gpu_common(g)) return false;
    // vLLM and SGLang run on CUDA and ROCm devices, not on Apple's unified memory.
    if (k == GpuKind::Apple && pooled(job)) return false;
    switch (pool) {
        case GpuPool::Auto: return trains(job) ? k == GpuKind::Datacenter : true;
        case GpuPool::Datacenter: return k == GpuKind::Datacenter;
        case GpuPool::Workstation: return k == GpuKind::Workstation;
        case GpuPool::Consumer: return k == GpuKind::Consumer;
        case GpuPool::Any: return true;
    }
    return true;
}

const char* pool_words(GpuPool pool, const Job& job) {
    if (pool == GpuPool::Auto) return trains(job) ? "datacenter" : "any";
    return gpu_pool_name(pool);
}

// What shrinks a job that no count of GPUs holds: checkpointing only when the job has less than full.
std::string shrink_advice(const Job& job) {
    if (!trains(job)) return "lower batch or sequence length, or a smaller format";
    return job.checkpointing == Checkpointing::Full ? "lower batch or sequence length" : "lower batch or sequence length, or use full checkpointing";
}

// Counts a person buys or rents (issue 33): 1, 2, 4 or 8 GPUs (one machine), then whole nodes of 8.
int64_t common_count(int64_t n) { return n <= 1 ? 1 : n <= 2 ? 2 : n <= 4 ? 4 : (n + 7) / 8 * 8; }
// The most of one kind a person puts together: a box of 8 consumer or workstation cards, one Mac; data-centre
// parts by the node, up to the fewest-GPUs answer's limit.
int64_t most_of(const Gpu& g) {
    const GpuKind k = gpu_kind(g);
    return k == GpuKind::Apple ? 1 : k == GpuKind::Datacenter ? kMinGpusLimit : 8;
}

// What a person would buy or rent: for each GPU of the pool, the smallest common count from the GPU
// table's fewest that holds the job with at least 10 % headroom (the next common counts tried when the
// first is tight); then fewest nodes first, the clouds' instance families before rarer parts, fewest GPUs,
// the smaller GPU. None with headroom: the best tight one, said so.
Recommendation recommend(const Plan& p, const Estimate& e) {
    Recommendation r;
    const Job& job = p.job;
    r.pool = pool_words(job.recommend_from, job);
    struct Candidate {
        const Gpu* gpu;
        int64_t n;
        AtCount at;
        bool roomy;
    };
    std::vector<Candidate> found;
    const auto& catalog = gpu_catalog();
    const Layout chosen = e.layout;
    std::map<int64_t, FitAt> totals;
    for (size_t i = 0; i < catalog.size() && i < e.fits.size(); ++i) {
        const GpuFit& f = e.fits[i];
        const Gpu& g = catalog[i];
        if (!in_pool(g, job.recommend_from, job)) continue;
        const double cap = gpu_bytes(g);
        if (job.gpus > 1) {
            // A job laid out on several GPUs is judged on that many.
            if (!f.fits_as_configured && !pooled(job)) continue;
            AtCount a{true, true, e.breakdown.total(), cap, layout_label(job, e.layout)};
            if (pooled(job)) a = at_count(p, chosen, &g, cap, job.gpus);
            if (a.fits) found.push_back({&g, job.gpus, a, headroom(a.used, a.capacity) >= kTightHeadroom});
            continue;
        }
        if (f.gpus_needed <= 0) continue;
        // The common counts from the table's fewest, until one leaves 10 % free (three tried at most).
        Candidate best{&g, 0, {}, false};
        int64_t n = common_count(f.gpus_needed);
        for (int tries = 0; tries < 3 && n <= most_of(g); ++tries, n = common_count(n + 1)) {
            const AtCount a = at_count(p, chosen, &g, cap, n, pooled(job) || llama_cpp_like(job) ? nullptr : &totals);
            if (!a.fits) continue;
            const bool roomy = headroom(a.used, a.capacity) >= kTightHeadroom;
            if (best.n == 0 || roomy) best = {&g, n, a, roomy};
            if (roomy) break;
        }
        if (best.n > 0) found.push_back(best);
    }
    auto nodes = [](int64_t n) { return (n + 7) / 8; };
    const auto better = [&](const Candidate& a, const Candidate& b) {
        if (a.roomy != b.roomy) return a.roomy;
        if (nodes(a.n) != nodes(b.n)) return nodes(a.n) < nodes(b.n);
        if (gpu_widely_rented(*a.gpu) != gpu_widely_rented(*b.gpu)) return gpu_widely_rented(*a.gpu);
        if (a.n != b.n) return a.n < b.n;
        return gpu_bytes(*a.gpu) < gpu_bytes(*b.gpu);
    };
    const Candidate* best = nullptr;
    for (const Candidate& c : found)
        if (!best || better(c, *best)) best = &c;
    if (!best) {
        r.text = std::string("no ") + (r.pool == std::string("any") ? "" : r.pool + " ") + "GPU of the catalog holds it at any count (" +
                 shrink_advice(job) + ")";
        return r;
    }
    r.found = true;
    r.gpu_id = best->gpu->id;
    r.gpu_name = best->gpu->name;
    r.gpus = best->n;
    r.layout = best->at.layout;
    r.per_gpu_bytes = best->at.used;
    r.capacity_bytes = best->at.capacity;
    r.tight = !best->roomy;
    r.text = gpus_text(r.gpus, r.gpu_name, r.layout) + ": " +
             (pooled(job) ? "KV " + use_text(r.per_gpu_bytes, r.capacity_bytes, 1) + " of its pool"
                          : use_text(r.per_gpu_bytes, r.capacity_bytes, r.gpus)) +
             (r.tight ? " (tight: under 10 % headroom)" : "");
    return r;
}

// vLLM / SGLang: the requests' KV against the engine's pool, in one unit.
void pool_verdict(const Plan& p, const Estimate& e, Verdict& v) {
    const ServingInfo& s = e.serving;
    const ServingView view = serving_view(p.job, s);
    v.capacity_bytes = std::max(0.0, s.kv_pool);
    v.used_bytes = s.kv_needed;
    const std::string where = (v.gpus > 1 ? count(v.gpus) + " × " : "") + v.gpu_name;
    v.text = (s.fits ? "fits your " : "does not fit your ") + where + ": " + view.detail;
}

// llama.cpp / Ollama: full offload, partial (-ngl N) or too large, as llama.cpp splits the GPUs.
void offload_verdict(const Plan& p, const Estimate& e, Verdict& v) {
    const ServingInfo& s = e.serving;
    v.layers = s.layers;
    v.gpu_layers = s.gpu_layers;
    v.cpu_bytes = s.cpu_bytes;
    const std::string where = (v.gpus > 1 ? count(v.gpus) + " × " : "") + v.gpu_name;
    const bool full = s.gpu_layers >= s.layers && p.job.n_gpu_layers != 0;
    // With the experts kept in system RAM (-ot exps=CPU) every layer is on the GPU but not all of its weights.
    const std::string how = p.job.experts_on_cpu ? " with every layer on the GPU and the experts in system RAM (-ot exps=CPU): "
                                                 : " fully offloaded: ";
    if (s.fits) {
        v.text = (full ? "fits your " + where + how : "partial offload on your " + where + ": -ngl " +
                                                                          count(s.gpu_layers) + " of " + count(s.layers) +
                                                                          " layers on the GPU, ") +
                 use_text(v.used_bytes, v.capacity_bytes, v.gpus) +
                 (s.cpu_bytes > 0 ? "; " + gb_text(s.cpu_bytes) + " in system RAM" : "");
        if (!full) v.status = "partial";
        return;
    }
    // As set it does not fit: with every layer asked for, the most -ngl that does (answers/inverse.cpp).
    if (p.job.n_gpu_layers < 0) {
        const Answer a = solve(p.m, p.job, Question::MaxGpuLayers);
        if (a.found && a.value >= 1) {
            Job at = p.job;
            at.n_gpu_layers = a.value;
            v.status = "partial";
            v.gpu_layers = std::min<int64_t>(a.value, s.layers);
            const Step partial = run_step(make_plan(p.m, at), e.layout, false);
            v.used_bytes = partial.breakdown.total();
            v.cpu_bytes = partial.serving.cpu_bytes;
            v.text = "partial offload on your " + where + ": -ngl " + count(a.value) + " of " + count(s.layers) +
                     " layers on the GPU, " + use_text(v.used_bytes, v.capacity_bytes, v.gpus) + "; " + gb_text(v.cpu_bytes) +
                     " in system RAM";
            return;
        }
    }
    v.text = "too large for your " + where + ": " + gb_text(v.used_bytes) + " against " + gb_text(v.capacity_bytes) +
             (p.job.n_gpu_layers < 0 ? ", and not even one layer fits beside the compute buffer" : " with -ngl " + count(p.job.n_gpu_layers));
}

void set_symbol(Verdict& v) {
    const std::string s = v.status;
    v.symbol = s == "fits" ? "✓" : s == "tight" ? "!" : s == "partial" ? "◐" : s == "no" ? "✗" : "";
    if (!v.symbol.empty()) v.text = v.symbol + " " + v.text;
}

}  // namespace

std::string gpu_name_of(const Job& job) {
    if (job.device_gib > 0) return "GPU of " + capacity_text(device_bytes(job));
    return job.gpu ? job.gpu->name : "";
}

Verdict verdict_for(const Plan& p, const Estimate& e) {
    const Job& job = p.job;
    Verdict v;
    v.gpus = job.gpus;
    const double capacity = device_bytes(job);
    if (capacity <= 0) {
        // No GPU given: the headline says what the job needs, and where it fits with headroom.
        v.recommendation = recommend(p, e);
        const double total = e.breakdown.total();
        const Recommendation& r = v.recommendation;
        std::string lead = job.gpus > 1 ? gb_text(total) + " per GPU on " + count(job.gpus) + " GPUs (" +
                                              gb_text(total * static_cast<double>(job.gpus)) + " in all)"
                           : r.found && r.gpus > 1 ? gb_text(total) + " in all"
                                                   : "needs " + gb_text(total) + " on one GPU";
        v.headline = lead + (r.found ? " → " + r.text : "; " + r.text);
        v.text = v.headline;
        return v;
    }
    v.gpu_id = job.device_gib > 0 ? "custom" : job.gpu->id;
    v.gpu_name = gpu_name_of(job);
    v.capacity_source = job.device_gib > 0 ? "as given" : usable_source(*job.gpu);
    v.capacity_bytes = capacity;
    v.used_bytes = e.breakdown.total();
    bool fits = trains(job) ? v.used_bytes <= capacity : e.serving.fits;
    if (pooled(job)) pool_verdict(p, e, v);
    else if (llama_cpp_like(job)) offload_verdict(p, e, v);
    else
        v.text = std::string(fits ? "fits your " : "does not fit your ") + (v.gpus > 1 ? count(v.gpus) + " × " : "") + v.gpu_name +
                 ": " + use_text(v.used_bytes, v.capacity_bytes, v.gpus);
    fits = fits || std::string(v.status) == "partial";
    v.used_share = v.capacity_bytes > 0 ? v.used_bytes / v.capacity_bytes : 0;
    v.headroom_share = headroom(v.used_bytes, v.capacity_bytes);
    if (std::string(v.status) != "partial") v.status = !fits ? "no" : v.headroom_share < kTightHeadroom ? "tight" : "fits";
    if (std::string(v.status) == "tight") v.text += " (tight: under 10 % headroom)";
    if (!fits) {
        // The fewest of the user's GPU that hold it: the GPU table's count, at the table's layout.
        const GpuFit* row = row_for(e, job);
        v.needs_gpus = row ? row->gpus_needed : 0;
        if (v.needs_gpus > 0) {
            const AtCount a = at_count(p, e.layout, user_gpu(job), capacity, v.needs_gpus);
            v.needs_layout = a.layout;
            v.needs_per_gpu_bytes = a.used;
            v.text += "; " + std::string(v.needs_gpus <= job.gpus ? "fits when laid out as " : "needs ") +
                      gpus_text(v.needs_gpus, v.gpu_name, a.layout) + ", " +
                      (pooled(job) ? "KV " + use_text(a.used, a.capacity, 1) + " of the pool" : use_text(a.used, a.capacity, v.needs_gpus)) +
                      (headroom(a.used, a.capacity) < kTightHeadroom ? " (tight: under 10 % headroom)" : "");
            // More of it than anyone puts together (42 × RTX 3060): what a person would buy or rent instead.
            if (user_gpu(job) && v.needs_gpus > most_of(*user_gpu(job))) {
                v.recommendation = recommend(p, e);
                if (v.recommendation.found) v.text += "; more than one machine of them → " + v.recommendation.text;
            }
        } else {
            v.recommendation = recommend(p, e);
            v.text += std::string("; no count of it holds the job (") +
                      (trains(job) ? "what each GPU keeps, its activations, does not shrink with more of them: " + shrink_advice(job)
                                   : "what each GPU keeps does not shrink enough: lower batch or sequence length, or a smaller format") +
                      ")" +
                      std::string(v.recommendation.found ? " → " + v.recommendation.text : "");
        }
    }
    set_symbol(v);
    return v;
}

}  // namespace vramcalc
