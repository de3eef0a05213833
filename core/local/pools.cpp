// Two pools, one verdict (issue 32): what a local runtime needs of the GPU's memory and of the system RAM
// (or, on a unified-memory machine, of the GPU's share and of the one memory), which is short and by how
// much, what the runtime itself would say, and the warnings about pinned and memory-mapped weights.
#include <algorithm>
#include <cmath>

#include "local/local.hpp"
#include "serving/engines.hpp"
#include "serving/gguf.hpp"
#include "serving/serving.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

constexpr double kTight = 0.10;  // under 10 % of a pool free is tight (as the GPU verdict says it)
constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;

std::string percent(double x) { return printf_text("%.0f %%", 100 * x); }

void judge(PoolUse& u) {
    if (!u.known) {
        u.fits = true;
        u.text = "needs " + gb_text(u.need_bytes) + " (size not given)";
        return;
    }
    u.fits = u.need_bytes <= u.have_bytes;
    u.short_bytes = u.fits ? 0 : u.need_bytes - u.have_bytes;
    u.text = u.fits ? gb_text(u.need_bytes) + " of " + gb_text(u.have_bytes) + " (" + percent(u.need_bytes / u.have_bytes) + ")"
                    : "needs " + gb_text(u.need_bytes) + ", has " + gb_text(u.have_bytes);
}
bool tight(const PoolUse& u) { return u.known && u.fits && u.have_bytes > 0 && (u.have_bytes - u.need_bytes) / u.have_bytes < kTight; }

// Ollama's own refusal before 0.30 (llm/server.go: "model requires more system memory (%s) than is
// available (%s)", format.HumanBytes2: one decimal, GiB), off macOS: what stays in RAM against free RAM +
// free swap.
std::string ollama_refusal(const Job& j, const MachinePools& m, double cpu_need) {
    if (j.engine != Engine::Ollama || j.fit || !m.ram_given || m.unified) return "";
    const double available = m.ram_free_bytes + j.machine.swap_bytes;
    if (cpu_need <= available) return "";
    return "model requires more system memory (" + printf_text("%.1f", cpu_need / kGiBytes) + " GiB) than is available (" +
           printf_text("%.1f", available / kGiBytes) + " GiB)";
}

}  // namespace

LocalAnswer local_answer(const Plan& p, const Layout& l, const Breakdown& b, const ServingInfo& s, const FitReport& fit) {
    const Job& j = p.job;
    LocalAnswer a;
    a.applies = runs_locally(j);
    if (!a.applies) return a;
    a.fit = fit;
    a.runtime = std::string(j.runtime_label) +
                (j.runtime_version.empty() || j.runtime_version.rfind("newest", 0) == 0 ? "" : " (as " + j.runtime_version + ")");
    const MachinePools m = machine_pools(j.machine, j.gpu, j.gpus, device_bytes(j));
    a.machine = m;
    const double total = b.total();  // the fullest GPU (CPU only: the RAM figures)
    const double ram_part = j.machine.cpu_only ? total : s.cpu_bytes;
    // Weights in RAM that llama.cpp maps from the file (mmap) rather than allocating: the OS may drop and
    // re-read them, so running short of them makes a run slow rather than impossible.
    const double mapped = llama_cpp_like(j) && j.mmap && !j.mlock ? s.cpu_weights : 0;
    if (m.unified) {
        a.gpu.key = "gpu";
        a.gpu.label = "GPU share of unified memory (" + m.gpu_text + ")";
        a.gpu.need_bytes = total;
        a.gpu.have_bytes = m.gpu_bytes;
        a.gpu.detail = m.share_source;
        a.ram.key = "unified";
        a.ram.label = "unified memory";
        a.ram.need_bytes = total + ram_part;
        a.ram.have_bytes = m.ram_free_bytes;
        a.ram.detail = m.ram_text + (j.machine.ram_used_bytes > 0 ? ", less " + gb_text(j.machine.ram_used_bytes) + " in use" : "");
    } else {
        a.gpu.key = "gpu";
        a.gpu.label = m.cpu_only ? "GPU memory (none: CPU only)" : "GPU memory (" + (j.gpus > 1 ? std::to_string(j.gpus) + " × " : std::string()) + m.gpu_text + ")";
        a.gpu.need_bytes = m.cpu_only ? 0 : total;
        a.gpu.have_bytes = m.gpu_bytes;
        a.gpu.known = !m.cpu_only && m.gpu_bytes > 0;
        a.gpu.detail = m.cpu_only ? "no GPU" : j.gpus > 1 ? "the fullest of " + std::to_string(j.gpus) + " GPUs" : "";
        a.ram.key = "ram";
        a.ram.label = "system RAM";
        a.ram.need_bytes = ram_part;
        a.ram.have_bytes = m.ram_free_bytes;
        a.ram.known = m.ram_given;
        a.ram.detail = m.ram_text + (j.machine.ram_used_bytes > 0 ? ", less " + gb_text(j.machine.ram_used_bytes) + " in use" : "");
    }
    judge(a.gpu);
    judge(a.ram);
    a.speed = local_speed(p, l, b, s, m, std::min<int64_t>(j.seq, 512));

    // The runtime's own refusal, and the verdict.
    a.runtime_error = ollama_refusal(j, m, ram_part);
    std::vector<std::string> shorts;
    if (!a.gpu.fits)
        shorts.push_back("needs " + gb_text(a.gpu.short_bytes) + (m.unified ? " more than the GPU may use of the unified memory" : " more GPU memory"));
    const bool ram_short = !a.ram.fits;
    const double hard_ram = a.ram.need_bytes - (m.unified ? 0 : mapped);  // what cannot be paged from the file
    const bool paging = ram_short && !m.unified && mapped > 0 && hard_ram <= a.ram.have_bytes && a.runtime_error.empty();
    if (ram_short) shorts.push_back("needs " + gb_text(a.ram.short_bytes) + (m.unified ? " more unified memory" : " more RAM"));
    a.shortfall = shorts.empty() ? "" : shorts.front() + (shorts.size() > 1 ? " and " + shorts.back().substr(6) : "");
    const bool gpu_ok = a.gpu.fits, ram_ok = a.ram.fits || paging;
    // --fit fills the GPUs up to its margin by design: a fitted GPU pool is not "tight".
    const bool gpu_tight = tight(a.gpu) && !(fit.ran && fit.fits && (fit.n_cpu_moe > 0 || fit.gpu_layers >= 0 || fit.ctx_to > 0));
    // Layers (not only experts) left in RAM: a partial offload, as llama.cpp's -ngl says it.
    const int64_t L = p.m.config.layers;
    const bool partial = llama_cpp_like(j) && !m.cpu_only && !m.unified && j.n_gpu_layers >= 0 && j.n_gpu_layers < L;
    a.status = !gpu_ok || !ram_ok ? "no" : paging ? "slow" : (gpu_tight || tight(a.ram)) ? "tight" : partial ? "partial" : "fits";
    const std::string st = a.status;
    a.symbol = st == "fits" ? "✓" : st == "tight" ? "!" : st == "slow" || st == "partial" ? "◐" : "✗";
    std::string pools;
    if (m.unified)
        pools = "GPU share " + a.gpu.text + ", unified memory " + a.ram.text;
    else
        pools = (m.cpu_only ? std::string("no GPU") : "GPU " + a.gpu.text + (j.gpus > 1 ? " on the fullest" : "")) +
                (a.ram.known ? ", system RAM " + a.ram.text : ", system RAM " + gb_text(a.ram.need_bytes) + " (give your system RAM to check it)");
    std::string layout;
    if (llama_cpp_like(j) && !m.cpu_only) {
        if (j.n_gpu_layers >= 0 && j.n_gpu_layers <= L)
            layout = " with -ngl " + std::to_string(j.n_gpu_layers) + " of " + std::to_string(L) + " layers on the GPU";
        else if (j.experts_on_cpu)
            layout = " with every layer's routed experts in RAM (--cpu-moe)";
        else if (j.n_cpu_moe > 0)
            layout = " with the routed experts of the first " + std::to_string(j.n_cpu_moe) + " of " + std::to_string(L) +
                     " layers in RAM (--n-cpu-moe " + std::to_string(j.n_cpu_moe) + ")";
    }
    // The layout in words, for the page's "Layout" line: the one the verdict names, else where everything is.
    a.layout_text = !layout.empty() ? layout.substr(std::string(" with ").size())
                    : m.cpu_only               ? "no GPU: every layer on the CPU, in RAM"
                    : j.engine == Engine::Mlx  ? "the whole model in the unified memory"
                    : llama_cpp_like(j)        ? "every layer on the GPU"
                                               : "";
    const std::string lead = (st == "fits" || st == "partial" ? "fits" : st == "tight" ? "fits, tight" : st == "slow" ? "runs, slowly"
                                                                                                            : "does not fit") +
                             layout;
    a.verdict = a.symbol + " " + lead + ": " + pools;
    if (!a.shortfall.empty()) a.verdict += "; " + a.shortfall;
    if (paging) a.verdict += " (the weights in RAM are memory-mapped: the OS re-reads them from disk as it needs them)";
    if (!a.runtime_error.empty()) a.verdict += "; Ollama refuses: " + a.runtime_error;
    if (a.speed.known && st != "no") a.verdict += "; decode about " + a.speed.decode_text;

    // Warnings.
    if (!m.unified && !m.cpu_only && !a.ram.known && ram_part > 0)
        a.warnings.push_back(gb_text(ram_part) + " stays in system RAM: give your system RAM to check that it fits");
    if (llama_cpp_like(j) && ram_part > 0 && !m.cpu_only) {
        const double weights_ram = s.cpu_weights;
        if (j.mlock)
            a.warnings.push_back("--mlock pins " + gb_text(weights_ram) + " of weights in RAM: the OS cannot page them, and the "
                                 "locked-memory limit (ulimit -l) must allow it");
        else if (j.mmap)
            a.warnings.push_back("the weights kept in RAM are memory-mapped from the GGUF file: the first tokens read them from disk, "
                                 "and when RAM runs short the OS drops and re-reads them (slow, not an error); --no-mmap reads them "
                                 "in at load instead");
        else
            a.warnings.push_back("--no-mmap reads " + gb_text(weights_ram) + " of weights into RAM at load: it must all fit");
        if (j.gpu && std::string(j.gpu->vendor) == "NVIDIA")
            a.warnings.push_back("llama.cpp's CUDA host buffers (token_embd with --no-mmap, the CPU side's compute buffer) are pinned, "
                                 "page-locked memory");
    }
    if (m.unified && j.engine == Engine::Mlx && a.gpu.need_bytes > 0.9 * a.gpu.have_bytes)
        a.warnings.push_back("mlx-lm warns when the model needs more than 90 % of the GPU's working set "
                             "(\"[WARNING] Generating with a model that requires …\", mlx_lm/generate.py): it runs, but slowly");
    if (m.unified && !a.gpu.fits && unified_machine(j.gpu) && unified_machine(j.gpu)->kind == UnifiedKind::Apple) {
        const double want_mb = std::ceil((a.gpu.need_bytes + 1.0 * kGiBytes) / (1024.0 * 1024.0) / 1024) * 1024;
        a.warnings.push_back("raise the GPU's wired limit: sudo sysctl iogpu.wired_limit_mb=" + printf_text("%.0f", want_mb) +
                             " (until the next reboot; leave the OS a few GB)");
    }
    if (m.unified && unified_machine(j.gpu) && unified_machine(j.gpu)->kind == UnifiedKind::StrixHalo && j.machine.gtt_gb <= 0)
        a.warnings.push_back("amdgpu's GTT is half of the RAM by default: amdgpu.gttsize and ttm.pages_limit raise it (to ~124 GiB "
                             "of 128)");
    if (j.engine == Engine::Ollama && m.unified && !j.fit)
        a.warnings.push_back("Ollama before 0.30 estimates its own layout; from 0.30 it runs llama-server, which fits it with --fit");
    if (j.engine == Engine::Mlx && j.prompt_cache_size > 1)
        a.warnings.push_back("mlx_lm.server keeps up to " + std::to_string(j.prompt_cache_size) +
                             " conversations' KV caches (--prompt-cache-size): each distinct one holds its own");
    return a;
}

}  // namespace vramcalc
