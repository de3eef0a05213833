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
std::string gpu_name_of(const Job& job) {
    if (job.device_gib > 0) return "GPU of " + capacity_text(device_bytes(job));
    return job.gpu ? job.gpu->name : "";
}

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
                 std::map<int64_t, double>* totals = nullptr) {
    AtCount a;
    Layout l;
    if (!fit_layout(p, chosen, n, l)) return a;
    a.laid_out = true;
    a.layout = layout_label(p.job, l);
    if (!pooled(p.job) && !llama_cpp_like(p.job) && !rollout_sized_by_device(p.job.post)) {
        const auto it = totals ? totals->find(n) : decltype(totals->end()){};
        a.used = totals && it != totals->end() ? it->second : run_step(p, l, false).breakdown.total();
        if (totals) (*totals)[n] = a.used;
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

// The fewest GPUs of the pool that hold the job with 10 % headroom, the smaller GPU first among
// equal counts; the counts are the GPU table's. None with headroom: the first that fits, marked tight.
Recommendation recommend(const Plan& p, const Estimate& e) {
    Recommendation r;
    const Job& job = p.job;
    r.pool = pool_words(job.recommend_from, job);
    struct Candidate {
        const Gpu* gpu;
        int64_t n;
    };
    std::vector<Candidate> order;
    const auto& catalog = gpu_catalog();
    for (size_t i = 0; i < catalog.size() && i < e.fits.size(); ++i) {
        const GpuFit& f = e.fits[i];
        if (!in_pool(catalog[i], job.recommend_from, job)) continue;
        // A job laid out on several GPUs is judged on that many; otherwise on the table's fewest.
        const int64_t n = job.gpus > 1 ? (f.fits_as_configured ? job.gpus : 0) : f.gpus_needed;
        if (n > 0) order.push_back({&catalog[i], n});
    }
    std::stable_sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) {
        return a.n != b.n ? a.n < b.n : gpu_bytes(*a.gpu) < gpu_bytes(*b.gpu);
    });
    const Layout chosen = e.layout;
    std::map<int64_t, double> totals;
    for (size_t i = 0; i < order.size(); ++i) {
        const Candidate& c = order[i];
        const double cap = gpu_bytes(*c.gpu);
        AtCount a;
        if (job.gpus > 1) {
            a = {true, true, pooled(job) ? e.serving.kv_needed : e.breakdown.total(), cap, layout_label(job, e.layout)};
            if (pooled(job)) a = at_count(p, chosen, c.gpu, cap, job.gpus);
        } else {
            a = at_count(p, chosen, c.gpu, cap, c.n, &totals);
        }
        if (!a.fits) continue;
        const bool roomy = headroom(a.used, a.capacity) >= kTightHeadroom;
        if (!roomy && r.found) continue;  // keep the first tight one only until a roomy one turns up
        r.found = true;
        r.gpu_id = c.gpu->id;
        r.gpu_name = c.gpu->name;
        r.gpus = c.n;
        r.layout = a.layout;
        r.per_gpu_bytes = a.used;
        r.capacity_bytes = a.capacity;
        r.tight = !roomy;
        if (roomy) break;
    }
    if (!r.found) {
        r.text = std::string("no ") + (r.pool == std::string("any") ? "" : r.pool + " ") +
                 "GPU of the catalog holds it at any count (lower batch or sequence length, or use checkpointing)";
        return r;
    }
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
    if (s.fits) {
        v.text = (full ? "fits your " + where + " fully offloaded: " : "partial offload on your " + where + ": -ngl " +
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
        } else {
            v.recommendation = recommend(p, e);
            v.text += std::string("; no count of it holds the job (") +
                      (trains(job) ? "what each GPU keeps, its activations, does not shrink with more of them: lower batch or "
                                     "sequence length, or use checkpointing"
                                   : "what each GPU keeps does not shrink enough: lower batch or sequence length, or a smaller format") +
                      ")" +
                      std::string(v.recommendation.found ? " → " + v.recommendation.text : "");
        }
    }
    set_symbol(v);
    return v;
}

}  // namespace vramcalc
