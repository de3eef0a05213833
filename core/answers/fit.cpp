#include "answers/fit.hpp"

#include <algorithm>

#include "hardware/gpus.hpp"
#include "machine/machine.hpp"
#include "serving/serving.hpp"
#include "step/timeline.hpp"

namespace vramcalc {
namespace {

constexpr int64_t kExactUpTo = 64;     // every count up to here is tried
constexpr int64_t kMaxGpus = 65'536;   // beyond: binary search (per-GPU memory falls with the count)

// Which catalog GPUs are A100s (vLLM's defaults test the device name), read once.
const std::vector<bool>& catalog_a100() {
    static const std::vector<bool> a100 = [] {
        std::vector<bool> v;
        for (const Gpu& g : gpu_catalog()) v.push_back(std::string(g.id).rfind("a100", 0) == 0);
        return v;
    }();
    return a100;
}

}  // namespace

bool fit_layout(const Plan& p, const Layout& chosen, int64_t n, Layout& l) {
    l = chosen;
    if (trains(p.job)) {
        if (!training_layout_for(p.job, n, l.zero)) return false;
        l.dp = n / (l.tp * l.pp * l.cp);
    } else {
        if (!inference_layout_for(p.m.config, p.job, n, l.tp, l.pp)) return false;
        l.dp = n / (l.tp * l.pp);
        l.cp = 1;
        l.zero = 0;
    }
    l.gpus = n;
    return true;
}

std::string layout_label(const Job& job, const Layout& l, int64_t ep) {
    if (l.gpus <= 1) return "";
    if (trains(job)) {
        std::string s = l.zero == 3 && job.zero == 0 ? "ZeRO-3 / FSDP" : l.zero > 0 ? "ZeRO-" + std::to_string(l.zero) : "";
        if (l.tp > 1) s = "TP " + std::to_string(l.tp) + (s.empty() ? "" : ", " + s);
        const int64_t e = ep > 0 ? ep : job.ep;
        if (e > 1) s += (s.empty() ? "" : ", ") + std::string("EP ") + std::to_string(e);
        return s;
    }
    if (llama_cpp_like(job)) return std::string("-sm ") + split_mode_name(job.split_mode);
    return "TP " + std::to_string(l.tp) + " × PP " + std::to_string(l.pp);
}

std::vector<int64_t> expert_degrees(const ModelConfig& c, const Job& job, int64_t n) {
    if (!trains(job) || c.experts <= 0) return {job.ep};
    const int64_t tp = job.tp > 0 ? job.tp : 1, pp = job.pp > 0 ? job.pp : 1, etp = job.etp > 0 ? job.etp : tp;
    if (n % pp != 0) return {};
    const int64_t stage = n / pp;
    std::vector<int64_t> eps;
    for (int64_t d = 1; d <= c.experts && d * etp <= stage; ++d)
        if (c.experts % d == 0 && stage % (d * etp) == 0) eps.push_back(d);
    return eps;
}

LayoutSearch::LayoutSearch(const Plan& p, const Layout& chosen)
    : p_(p), chosen_(chosen), search_ep_(trains(p.job) && p.m.config.experts > 0 && !engine_budgets_device(p.job)) {}

const Plan& LayoutSearch::plan_for(int64_t ep) {
    if (ep == p_.job.ep) return p_;
    for (size_t i = 0; i < eps_.size(); ++i)
        if (eps_[i] == ep) return plans_[i];
    jobs_.push_back(p_.job);
    jobs_.back().ep = ep;
    plans_.push_back(make_plan(p_.m, jobs_.back()));
    eps_.push_back(ep);
    return plans_.back();
}

bool LayoutSearch::at(int64_t n, FitAt& out) {
    if (!fit_layout(p_, chosen_, n, out.layout)) return false;
    if (!search_ep_) {
        out.ep = 0;
        out.total = run_step(p_, out.layout, false).breakdown.total();
        return true;
    }
    bool any = false;
    for (int64_t ep : expert_degrees(p_.m.config, p_.job, n)) {
        const double total = run_step(plan_for(ep), out.layout, false).breakdown.total();
        if (!any || total < out.total) out.total = total, out.ep = ep;
        any = true;
    }
    return any;
}

Job on_device(const Job& job, const Gpu* gpu, double capacity) {
    Job j = job;
    j.gpu = gpu;
    const size_t row = gpu ? static_cast<size_t>(gpu - gpu_catalog().data()) : gpu_catalog().size();
    j.gpu_is_a100 = row < gpu_catalog().size() && catalog_a100()[row];
    j.device_gib = capacity / (1024.0 * 1024.0 * 1024.0);
    return j;
}

Step step_on_device(const Plan& p, const Gpu* gpu, double capacity, const Layout& l) {
    const Job j = on_device(p.job, gpu, capacity);
    return run_step(make_plan(p.m, j), l, false);
}

bool holds(const Plan& p, const Step& s, double capacity) {
    // A post-training step also needs its rollout engine to start (vLLM's pool holds one request of
    // its context) and, in server mode, the server's own GPUs to hold it (core/posttrain/rollout.cpp).
    if (s.post.active && (!s.post.rollout.starts || !s.post.rollout.server_fits)) return false;
    return trains(p.job) ? s.breakdown.total() <= capacity : s.serving.device > 0 ? s.serving.fits : s.breakdown.total() <= capacity;
}

namespace {

// vLLM / SGLang (engine_budgets_device): each GPU is asked the engine's own
// question, on that GPU. Fitting grows with capacity, so at each count the
// unresolved GPUs are tried largest first and the first miss ends the count.
// Each row is asked as that GPU (its interconnect and name decide engine defaults: NCCL's NVLS
// buffers, vLLM's A100 rule); the custom row as a device of its capacity only.
std::vector<GpuFit> fit_gpus_by_engine(const Plan& p, const Layout& chosen, std::vector<GpuFit> fits) {
    Layout l;
    auto fits_on = [&](const GpuFit& f, const Layout& at) {
        const size_t row = static_cast<size_t>(&f - fits.data());
        return holds(p, step_on_device(p, row < gpu_catalog().size() ? &gpu_catalog()[row] : nullptr, f.capacity_bytes, at),
                     f.capacity_bytes);
    };
    auto fits_at = [&](const GpuFit& f, int64_t n) { return fit_layout(p, chosen, n, l) && fits_on(f, l); };
    std::vector<GpuFit*> open;
    for (auto& f : fits) {
        f.fits_as_configured = fits_on(f, chosen);
        open.push_back(&f);
    }
    std::stable_sort(open.begin(), open.end(), [](const GpuFit* a, const GpuFit* b) { return a->capacity_bytes > b->capacity_bytes; });
    // Every count is tried in order: up to 64, and past it up to 8 · layers (the layouts that exist);
    // llama.cpp and Ollama up to the 16 devices llama.cpp sees.
    const int64_t most = llama_cpp_like(p.job) ? kLlamaCppMaxDevices
                                               : std::max(kExactUpTo, p.m.config.layers > 0 ? 8 * p.m.config.layers : kExactUpTo);
    for (int64_t n = 1; n <= most && !open.empty(); ++n) {
        size_t i = 0;
        while (i < open.size() && fits_at(*open[i], n)) open[i++]->gpus_needed = n;
        open.erase(open.begin(), open.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return fits;
}

}  // namespace

namespace {

// A Mac or a Strix Halo is one machine with one memory: no count of them shards a model (there is no
// GPU interconnect between them; issue 32: "ZeRO-3 across MacBooks"). Only the first counts.
std::vector<GpuFit> one_per_machine(std::vector<GpuFit> fits) {
    const auto& catalog = gpu_catalog();
    for (size_t i = 0; i < fits.size() && i < catalog.size(); ++i) {
        const UnifiedMachine* u = fits[i].custom ? nullptr : unified_machine(&catalog[i]);
        if (u && u->kind != UnifiedKind::Gb10 && fits[i].gpus_needed > 1) fits[i].gpus_needed = 0;
    }
    return fits;
}

std::vector<GpuFit> fit_gpus_any(const Plan& p, const Layout& chosen, double per_gpu_total);

}  // namespace

std::vector<GpuFit> fit_gpus(const Plan& p, const Layout& chosen, double per_gpu_total) {
    return one_per_machine(fit_gpus_any(p, chosen, per_gpu_total));
}

namespace {

std::vector<GpuFit> fit_gpus_any(const Plan& p, const Layout& chosen, double per_gpu_total) {
    std::vector<GpuFit> fits;
    for (const Gpu& g : gpu_catalog()) fits.push_back({g.id, g.name, gpu_bytes(g), per_gpu_total <= gpu_bytes(g), 0});
    // The user's own GPU (job.device_gib, GiB as marketed like the catalog's), answered like any other.
    if (p.job.device_gib > 0) {
        const double bytes = p.job.device_gib * 1024.0 * 1024.0 * 1024.0;
        fits.push_back({"custom", "Your GPU", bytes, per_gpu_total <= bytes, 0, true});
    }
    // Engines with their own test of a GPU (vLLM and SGLang pools, llama.cpp / Ollama's fullest GPU of a split).
    // So do post-training jobs whose colocated vLLM takes a share of the GPU it runs on.
    if (engine_budgets_device(p.job) || llama_cpp_like(p.job) || rollout_sized_by_device(p.job.post))
        return fit_gpus_by_engine(p, chosen, std::move(fits));
    LayoutSearch search(p, chosen);
    FitAt at;
    auto total_at = [&](int64_t n, double& total) {
        if (!search.at(n, at)) return false;
        total = at.total;
        return true;
    };
    size_t unresolved = fits.size();
    double total = 0;
    // Training an MoE, per-GPU memory is not monotonic in the count (the expert-parallel degrees a count
    // allows differ: 288 GPUs take EP 32, 296 only EP 8): every count is tried, as the fewest-GPUs answer
    // (answers/inverse.cpp) does, up to its limit; a GPU below the floor (the total on the most GPUs,
    // what never shrinks: activations, buffers) is never reached and not waited for.
    const bool moe_training = trains(p.job) && p.m.config.experts > 0;
    int64_t exact = kExactUpTo;
    if (moe_training) {
        exact = kMinGpusLimit;
        const int64_t group = chosen.tp * chosen.pp * chosen.cp;
        double floor = 0;
        if (total_at(kMinGpusLimit / group * group, floor))
            for (auto& f : fits)
                if (f.capacity_bytes < floor && f.gpus_needed == 0) f.gpus_needed = -1, --unresolved;  // never: marked, cleared below
    }
    for (int64_t n = 1; n <= exact && unresolved > 0; ++n) {
        if (!total_at(n, total)) continue;
        for (auto& f : fits)
            if (f.gpus_needed == 0 && total <= f.capacity_bytes) {
                f.gpus_needed = n;
                f.ep = at.ep;
                --unresolved;
            }
    }
    for (auto& f : fits)
        if (f.gpus_needed < 0) f.gpus_needed = 0;
    if (moe_training) return fits;
    // Past 64, per-GPU memory only falls as n doubles; find each GPU's count by
    // bisection over multiples of the layout's group size.
    const int64_t step = trains(p.job) ? chosen.tp * chosen.pp * chosen.cp : 8;
    // Inference lays n GPUs out as TP ≤ 8 × PP ≤ layers: no count past 8 · layers exists to try.
    const int64_t most = trains(p.job) || p.m.config.layers <= 0 ? kMaxGpus
                                                                  : std::min<int64_t>(kMaxGpus, 8 * p.m.config.layers);
    for (auto& f : fits) {
        if (f.gpus_needed != 0) continue;
        int64_t lo = kExactUpTo / step, hi = most / step;
        if (hi <= lo) continue;
        if (!total_at(hi * step, total) || total > f.capacity_bytes) continue;
        while (hi - lo > 1) {
            const int64_t mid = (lo + hi) / 2;
            if (total_at(mid * step, total) && total <= f.capacity_bytes) hi = mid;
            else lo = mid;
        }
        // Counts between two multiples also have layouts (TP 4 × PP 33 = 132 for 128 heads), and
        // per-GPU memory is not monotonic across layouts: the first count in the last bracket that
        // fits, as the fewest-GPUs answer (core/inverse.cpp), which tries every count, finds.
        f.gpus_needed = hi * step;
        for (int64_t n = (hi - 1) * step + 1; n < hi * step; ++n)
            if (total_at(n, total) && total <= f.capacity_bytes) {
                f.gpus_needed = n;
                break;
            }
        total_at(f.gpus_needed, total);
        f.ep = at.ep;
    }
    return fits;
}

}  // namespace

}  // namespace vramcalc
