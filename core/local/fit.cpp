// What the local runtimes choose before they load a model: llama.cpp's --fit (common/fit.cpp
// common_fit_params, on by default since PR #16653) and Ollama's context tier and layer placement.
#include <algorithm>

#include "local/local.hpp"
#include "serving/serving.hpp"
#include "step/timeline.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The fullest GPU's total for a job (the breakdown every verdict reads).
double total_of(const Model& m, const Job& j) {
    return run_step(make_plan(m, j), resolve_layout(m.config, j), false).breakdown.total();
}

// What --fit aims at: each GPU's memory less the margin it leaves (fit_params_target). A job without the
// fit (Ollama before 0.30 sizes its own layers) aims at the whole GPU.
double target_of(const Job& j) { return device_bytes(j) - (j.fit ? j.fit_target_mib * kMiB : 0); }

std::string grouped(int64_t n) { return grouped_text(static_cast<double>(n)); }

// The largest -ngl (0 … layers + 1) whose fullest GPU stays within the target.
int64_t largest_ngl(const Model& m, Job j, double target) {
    int64_t lo = 0, hi = m.config.layers + 1;  // fits(lo) is taken as true: nothing on the GPU but its context
    j.n_gpu_layers = hi;
    if (total_of(m, j) <= target) return hi;
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        j.n_gpu_layers = mid;
        (total_of(m, j) <= target ? lo : hi) = mid;
    }
    return lo;
}

}  // namespace

bool fits_as_set(const Model& m, const Job& j) {
    if (j.machine.cpu_only || device_bytes(j) <= 0) return false;
    return total_of(m, j) <= target_of(j);
}

int64_t smallest_n_cpu_moe(const Model& m, const Job& job, bool& found, double& total_at, double& total_next) {
    if (!m.config.is_moe())
        throw InputError("job.n_cpu_moe", "moves the routed experts of mixture-of-experts layers to RAM; this model is dense "
                                          "(ask for max_gpu_layers instead)");
    if (device_bytes(job) <= 0) throw InputError("job.gpu", "the smallest --n-cpu-moe needs your GPU (gpu, device_gb or device_gib)");
    Job j = job;
    j.experts_on_cpu = false;
    const double target = device_bytes(job) - job.fit_target_mib * kMiB;
    const int64_t L = m.config.layers;
    auto at = [&](int64_t n) {
        j.n_cpu_moe = n;
        return total_of(m, j);
    };
    found = at(L) <= target;
    if (!found) {
        total_at = at(L);
        total_next = total_at;
        return L;
    }
    int64_t lo = -1, hi = L;  // fits(hi); lo = -1 stands for "none fits below"
    if (at(0) <= target) hi = 0;
    else {
        lo = 0;
        while (hi - lo > 1) {
            const int64_t mid = lo + (hi - lo) / 2;
            (at(mid) <= target ? hi : lo) = mid;
        }
    }
    total_at = at(hi);
    total_next = hi > 0 ? at(hi - 1) : total_at;
    return hi;
}

Job runtime_job(const Model& m, const Job& job, FitReport& r) {
    Job j = job;
    if (!llama_cpp_like(job)) return j;
    const int64_t trained = m.config.context_length;
    // -c 0: the model's trained context; Ollama caps num_ctx at it (llm/server.go "requested context size
    // too large for model").
    if (j.ctx_auto && trained > 0) j.seq = trained;
    if (job.engine == Engine::Ollama && trained > 0 && j.seq > trained) j.seq = trained;
    if (job.machine.cpu_only || device_bytes(j) <= 0) return j;
    const bool ollama_places = job.engine == Engine::Ollama && !job.fit;
    if (!job.fit) {
        // No --fit (llama.cpp before 2025-12 runs out of memory with every layer asked for; Ollama before 0.30
        // places layers itself, llm/memory.go EstimateGPULayers): the most layers that fit, as the command
        // then says with -ngl.
        if (job.n_gpu_layers >= 0 || fits_as_set(m, j)) return j;
        r.ran = true;
        const int64_t ngl = largest_ngl(m, j, device_bytes(j));
        j.n_gpu_layers = ngl;
        r.gpu_layers = ngl;
        r.fits = ngl > 0;
        r.text = (ollama_places ? "Ollama's scheduler: " : "every layer does not fit the GPU (this llama.cpp has no --fit): ") +
                 (ngl > 0 ? "-ngl " + grouped(ngl) + " of " + grouped(m.config.layers + 1) : std::string("no layer fits on the GPU"));
        return j;
    }
    r.ran = true;
    const double target = target_of(j);
    const std::string who = "--fit";
    if (fits_as_set(m, j)) {
        r.text = who + ": the model fits as set" + (j.ctx_auto ? " with its full context of " + grouped(j.seq) + " tokens" : "");
        return j;
    }
    std::vector<std::string> steps;
    // Step 2 of common_fit_params: a context left to it (-c 0) shrinks by linear interpolation between the
    // trained context and fit_params_min_ctx, rounded down to 256; on one GPU that ends the fit when it suffices.
    if (j.ctx_auto && j.seq > j.fit_min_ctx) {
        Job lo = j;
        lo.seq = j.fit_min_ctx;
        const double mem_max = total_of(m, j), mem_min = total_of(m, lo);
        r.ctx_from = j.seq;
        if (target > mem_min && mem_max > mem_min) {
            const double add = static_cast<double>(j.seq - j.fit_min_ctx) * (target - mem_min) / (mem_max - mem_min);
            int64_t ctx = j.fit_min_ctx + static_cast<int64_t>(add);
            ctx = std::max<int64_t>(ctx - ctx % 256, j.fit_min_ctx);
            j.seq = ctx;
        } else {
            j.seq = j.fit_min_ctx;
        }
        r.ctx_to = j.seq;
        steps.push_back("context " + grouped(r.ctx_from) + " → " + grouped(r.ctx_to));
        if (total_of(m, j) <= target && j.gpus <= 1) {
            r.text = who + ": " + steps.front();
            return j;
        }
    }
    // Step 3: llama.cpp fits only what the user left unset (n_gpu_layers, tensor overrides, -ts).
    const bool user_placed = job.n_gpu_layers >= 0 || job.n_cpu_moe > 0 || job.experts_on_cpu || !job.tensor_split.empty();
    if (total_of(m, j) > target && user_placed) {
        r.fits = false;
        r.text = who + ": " + (steps.empty() ? "" : steps.front() + "; ") +
                 "the layers and tensors were placed by hand (n_gpu_layers, n_cpu_moe or -ot), which --fit leaves alone";
        return j;
    }
    if (total_of(m, j) > target && m.config.is_moe()) {
        // MoE: fill the GPUs back to front with whole layers and the experts of the first layers in RAM.
        bool found = false;
        double at = 0, next = 0;
        const int64_t n = smallest_n_cpu_moe(m, j, found, at, next);
        j.n_cpu_moe = n;
        r.n_cpu_moe = n;
        steps.push_back("the routed experts of the first " + grouped(n) + " of " + grouped(m.config.layers) + " layers in RAM");
    }
    if (total_of(m, j) > target) {
        const int64_t ngl = largest_ngl(m, j, target);
        j.n_gpu_layers = ngl;
        r.gpu_layers = ngl;
        steps.push_back(ngl == 0 ? std::string("no layer on the GPU") : "-ngl " + grouped(ngl) + " of " + grouped(m.config.layers + 1));
        r.fits = ngl > 0;
    }
    r.text = who + ": ";
    for (size_t i = 0; i < steps.size(); ++i) r.text += (i ? "; " : "") + steps[i];
    return j;
}

}  // namespace vramcalc
