// A model for chat on the user's own machine (llama.cpp, Ollama, MLX): each format of the quant ladder as the
// runtime would load it, the best one that runs, and that format's single-model answer (core/local/): how it
// runs, both pools, the speed and the command.
#include <algorithm>

#include "answers/inverse.hpp"
#include "local/local.hpp"
#include "serving/gguf.hpp"
#include "serving/serving.hpp"
#include "memory/states.hpp"
#include "step/timeline.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"
#include "whatfits/rows.hpp"

namespace vramcalc {
namespace {

// The candidates, largest first, and the quality floor: the format Ollama's library and LM Studio's picks
// default to (Q4_K_M; MLX: mlx-community's 4-bit), above which a larger format is taken only when it runs
// whole on the GPU. A checkpoint shipped in MXFP4 (gpt-oss) is run as published (ggml-org's GGUF).
struct Ladder {
    std::vector<FormatId> formats;
    size_t floor = 0;
};
Ladder ladder_for(const Model& m, const Job& job) {
    using F = FormatId;
    Ladder l;
    const NumberFormat* shipped = m.config.quant.format;
    if (job.engine == Engine::Mlx) {
        const double bits = shipped ? shipped->bits : 16;
        for (F f : {F::Bf16, F::Int8, F::Int4})
            if (format(f).bits <= bits + 0.5) l.formats.push_back(f);
        l.floor = l.formats.size() - 1;
        return l;
    }
    if (shipped && shipped->id == F::Mxfp4) {
        l.formats = {F::Mxfp4};
        return l;
    }
    l.formats = format_ladder(job);  // answers/inverse.cpp: F16 down to Q2_K
    l.floor = static_cast<size_t>(std::find(l.formats.begin(), l.formats.end(), F::Q4_K_M) - l.formats.begin());
    return l;
}

Job at_format(const Job& base, FormatId f) {
    Job j = base;
    j.dtype = &format(f);
    j.dtype_auto = false;
    return j;
}

// One format as the runtime runs it: the single-model answer's path (answers/estimate.cpp): the runtime's own
// placement, the plan, the step, both pools, the command.
struct Tried {
    Job run;
    FitReport fit;
    LocalAnswer local;
    LaunchCommand command;
    double weights = 0;
    const char* place = "full";
    bool runs = false;
};
Tried try_format(const Model& m, const Job& asked) {
    Tried t;
    t.run = runtime_job(m, asked, t.fit);
    const Plan plan = make_plan(m, t.run);
    const Layout layout = resolve_layout(m.config, t.run);
    const Step step = run_step(plan, layout, false);
    t.local = local_answer(plan, layout, step.breakdown, step.serving, t.fit);
    t.command = launch_command(plan, layout, "");
    t.weights = llama_cpp_like(asked) ? gguf_weights(plan).total() : base_weights_bytes(plan, nullptr);
    const Job& j = t.run;
    const int64_t L = m.config.layers;
    const MachinePools& pools = t.local.machine;
    if (pools.cpu_only) t.place = "cpu";
    else if (llama_cpp_like(j) && j.n_gpu_layers >= 0 && j.n_gpu_layers <= L) t.place = "partial";  // -ngl L: the output in RAM
    else if (j.experts_on_cpu || j.n_cpu_moe > 0) t.place = "experts_in_ram";
    const std::string st = t.local.status;
    // RAM not given: only what runs whole on the GPU counts (the list is capped by the GPU's memory).
    const bool ram_known = t.local.ram.known || pools.unified;
    t.runs = (st == "fits" || st == "tight" || st == "partial") && (ram_known || std::string(t.place) == "full");
    return t;
}

// Weights that cannot run on this machine whatever the placement: more than both pools hold (llama.cpp's
// GGUF bytes; a run that pages them from disk is not counted as running).
bool hopeless(const Model& m, const Job& j, const MachinePools& pools) {
    if (!llama_cpp_like(j)) return false;
    const double weights = gguf_weights(make_plan(m, j)).total();
    const double room = pools.unified || pools.cpu_only ? pools.ram_free_bytes
                        : pools.ram_given           ? pools.gpu_bytes * static_cast<double>(pools.gpus) + pools.ram_free_bytes
                                                    : pools.gpu_bytes * static_cast<double>(pools.gpus);
    return weights > room;
}

std::string layers_text(int64_t n, int64_t of) { return grouped_text(static_cast<double>(n)) + " of " + grouped_text(static_cast<double>(of)); }

void fill(FitRow& row, const Model& m, const Tried& t, bool runs) {
    const LocalAnswer& a = t.local;
    const Job& j = t.run;
    row.runs = runs;
    row.status = a.status;
    row.symbol = a.symbol;
    row.verdict = a.verdict;
    row.n_cpu_moe = j.experts_on_cpu ? m.config.layers : j.n_cpu_moe;
    row.gpu_layers = j.n_gpu_layers;
    row.layers = m.config.layers;
    row.gpus = j.gpus;
    row.weights_bytes = t.weights;
    row.gpu = pool_of(a.gpu.known, a.gpu.need_bytes, a.gpu.have_bytes, a.gpu.text);
    row.ram = pool_of(a.ram.known, a.ram.need_bytes, a.ram.have_bytes, a.ram.text);
    row.speed_known = a.speed.known;
    row.decode_tps = a.speed.decode_tps, row.decode_low = a.speed.decode_low, row.decode_high = a.speed.decode_high;
    row.prefill_tps = a.speed.prefill_tps, row.prefill_low = a.speed.prefill_low, row.prefill_high = a.speed.prefill_high;
    row.speed_text = a.speed.known ? "decode " + a.speed.decode_text + ", prefill " + a.speed.prefill_text : std::string();
    row.command = t.command.text;
    const std::string place = t.place;
    row.fit = runs ? t.place : "too_large";
    if (!runs) {
        // What it would read per token, paging or short of memory, is no speed to list.
        row.speed_known = false;
        row.decode_tps = row.decode_low = row.decode_high = row.prefill_tps = row.prefill_low = row.prefill_high = 0;
        row.speed_text.clear();
        return;
    }
    if (place == "cpu") row.fit_text = "CPU only, in system RAM";
    else if (place == "partial")
        row.fit_text = "partial: -ngl " + layers_text(j.n_gpu_layers, m.config.layers) + " layers on the GPU, " +
                       (j.n_gpu_layers == m.config.layers ? "the output layer in RAM" : "the rest in RAM");
    else if (place == "experts_in_ram")
        row.fit_text = j.experts_on_cpu ? "MoE experts of every layer in RAM (--cpu-moe)"
                                        : "MoE experts of " + layers_text(row.n_cpu_moe, m.config.layers) + " layers in RAM (--n-cpu-moe " +
                                              std::to_string(row.n_cpu_moe) + ")";
    else row.fit_text = a.machine.unified ? "whole in the GPU's share of unified memory" : j.gpus > 1 ? "whole on the GPUs" : "whole on the GPU";
}

}  // namespace

FitRow chat_row(const ListedModel& lm, const FitRequest& r) {
    const Model& m = *lm.model;
    FitRow row = row_for(lm, r, r.job);
    const Ladder ladder = ladder_for(m, row.job);
    for (FormatId f : ladder.formats) row.candidates.push_back(format(f).name);
    const Job& base = row.job;
    const MachinePools pools = machine_pools(base.machine, base.gpu, base.gpus, device_bytes(base));
    const bool ram_known = pools.ram_given || pools.unified;
    const size_t n = ladder.formats.size();
    auto whole = [&](size_t i) { return fits_as_set(m, at_format(base, ladder.formats[i])); };
    // The first index in [lo, hi) that runs whole on the GPU (smaller formats hold less: monotone); hi if none.
    auto first_whole = [&](size_t lo, size_t hi) {
        while (lo < hi) {
            const size_t mid = (lo + hi) / 2;
            if (whole(mid)) hi = mid;
            else lo = mid + 1;
        }
        return lo;
    };
    auto take = [&](size_t i, const Tried& t, bool runs = true) {
        const FormatId f = ladder.formats[i];
        row.job = at_format(base, f);
        row.dtype = format(f).name;
        row.format_label = format(f).label;
        fill(row, m, t, runs);
    };
    // 1. The largest format at or above the floor that runs whole on the GPU.
    if (!pools.cpu_only) {
        const size_t i = first_whole(0, ladder.floor + 1);
        if (i <= ladder.floor) {
            const Tried t = try_format(m, at_format(base, ladder.formats[i]));
            if (t.runs && std::string(t.place) == "full") {
                take(i, t);
                return row;
            }
        }
    }
    // 2. The floor across both pools (layers or experts in RAM, the CPU alone, a Mac's whole memory).
    if (ram_known && !hopeless(m, at_format(base, ladder.formats[ladder.floor]), pools)) {
        const Tried t = try_format(m, at_format(base, ladder.formats[ladder.floor]));
        if (t.runs) {
            take(ladder.floor, t);
            return row;
        }
    }
    // 3. Below the floor: the largest that runs (RAM not given: whole on the GPU).
    if (!ram_known) {
        const size_t i = pools.cpu_only ? n : first_whole(ladder.floor + 1, n);
        if (i < n) {
            const Tried t = try_format(m, at_format(base, ladder.formats[i]));
            if (t.runs) {
                take(i, t);
                return row;
            }
        }
    } else {
        for (size_t i = ladder.floor + 1; i < n; ++i) {
            if (hopeless(m, at_format(base, ladder.formats[i]), pools)) continue;  // a smaller one may still run
            const Tried t = try_format(m, at_format(base, ladder.formats[i]));
            if (t.runs) {
                take(i, t);
                return row;
            }
        }
    }
    // None runs: the smallest format's answer, and what it lacks.
    const size_t last = n - 1;
    const Tried t = try_format(m, at_format(base, ladder.formats[last]));
    take(last, t, false);
    if (!ram_known) {
        const double need = compute_breakdown(m, row.job).total();
        row.fit_text = "too large for the GPU even at " + std::string(format(ladder.formats[last]).label) + ": needs " + gb_text(need) +
                       ", has " + gb_text(device_bytes(base)) + " (give ram_gb to count layers or experts in RAM)";
    } else {
        row.fit_text = "too large even at " + std::string(format(ladder.formats[last]).label) +
                       (t.local.shortfall.empty() ? std::string(std::string(t.local.status) == "slow" ? ": its weights would be paged from disk" : "")
                                                  : ": " + t.local.shortfall);
    }
    return row;
}

}  // namespace vramcalc
