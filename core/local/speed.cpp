// How fast a local runtime decodes and prefills (issue 32): each token reads the weights it uses where
// they live, the layers on the GPU from its memory and the experts or layers in RAM from system RAM, one
// pool after the other, and hands the hidden state across PCIe each time it changes pool. Prefill runs in
// ubatches; mainline llama.cpp copies every RAM-resident weight matrix to the GPU for each ubatch of 32 or
// more tokens (op offload), so a large ubatch pays the copy once for many tokens.
#include <algorithm>
#include <cmath>

#include "local/local.hpp"
#include "local/speed_params.hpp"
#include "memory/kv.hpp"
#include "serving/engines.hpp"
#include "serving/gguf.hpp"
#include "serving/serving.hpp"
#include "serving/working_set.hpp"
#include "step/timeline.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// Bytes one decoded token reads, per pool, and how often it changes pool.
struct TokenReads {
    double gpu = 0, ram = 0;
    int64_t hops = 0;
    int64_t gpu_layers = 0, moe_gpu_layers = 0;
    double ram_weights = 0;  // weight bytes resident in RAM (what op offload copies per ubatch)
};

// The share of a layer's routed experts one token reads: k of E (uniform routing).
double routed_share(const ModelConfig& c) {
    return c.is_moe() && c.experts > 0 ? static_cast<double>(c.experts_per_token) / static_cast<double>(c.experts) : 1;
}

TokenReads llama_reads(const Plan& p, const ServingInfo& s, bool unified) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const GgufWeights& g = gguf_weights(p);
    const int64_t L = c.layers;
    const bool cpu_only = job.machine.cpu_only;
    const int64_t on_gpu = cpu_only ? 0 : s.gpu_layers;
    const bool output_gpu = !cpu_only && (job.n_gpu_layers < 0 || job.n_gpu_layers > L);
    const double k = routed_share(c);
    TokenReads r;
    int where = 1;  // the token starts on the CPU (token_embd's get_rows runs there); 1 = CPU, 2 = GPU
    auto at = [&](int pool, double bytes) {
        if (bytes <= 0) return;
        if (pool != where && !unified) r.hops += 1;
        where = pool;
        ((pool == 2 || unified) ? r.gpu : r.ram) += bytes;
    };
    r.ram_weights = g.token_embd;
    for (int64_t i = 0; i < L; ++i) {
        const size_t li = static_cast<size_t>(i);
        const bool gpu_layer = i >= L - on_gpu;
        const bool experts_ram = !gpu_layer || experts_in_ram(job, i);
        const double dense = g.layer[li] - g.experts[li];
        at(gpu_layer ? 2 : 1, dense);
        at(experts_ram ? 1 : 2, g.experts[li] * k);
        if (!gpu_layer) r.ram_weights += dense;
        if (experts_ram) r.ram_weights += g.experts[li];
        if (gpu_layer) {
            ++r.gpu_layers;
            if (c.is_moe()) ++r.moe_gpu_layers;
        }
    }
    at(output_gpu ? 2 : 1, g.output);
    if (!output_gpu) r.ram_weights += g.output;
    at(1, 1);  // sampling reads the logits on the CPU: back across PCIe when the output ran on the GPU
    return r;
}

// MLX: every weight in the unified memory, the routed experts read k of E.
TokenReads mlx_reads(const Plan& p, const Breakdown& b) {
    const ModelConfig& c = p.m.config;
    const double total = std::max(1.0, p.m.params.total);
    const double routed = p.expert_params / total;
    TokenReads r;
    r.gpu = b.bytes[kWeights] * ((1 - routed) + routed * routed_share(c));
    r.gpu_layers = c.layers;
    r.moe_gpu_layers = c.is_moe() ? c.layers : 0;
    return r;
}

// KV bytes one token reads at `context` tokens, split by where the layers are.
double kv_read(const Plan& p, const Layout& l, double share, int64_t context) {
    if (share <= 0 || context <= 0) return 0;
    Layout one = l;
    one.tp = 1;
    return kv_bytes(p, kv_cost(p, one, share), context, 1);
}

std::string tps_text(double tps) { return tps >= 100 ? fixed_text(tps, 1).substr(0, fixed_text(tps, 1).size() - 2) : tps >= 10 ? fixed_text(tps, 1) : fixed_text(tps, 2); }

}  // namespace

LocalSpeed local_speed(const Plan& p, const Layout& l, const Breakdown& b, const ServingInfo& s, const MachinePools& m,
                       int64_t prompt_tokens, int64_t decode_context) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const SpeedParams& sp = speed_params();
    LocalSpeed v;
    const bool unified = m.unified;
    const bool mlx = job.engine == Engine::Mlx;
    const TokenReads r = mlx ? mlx_reads(p, b) : llama_reads(p, s, unified);
    const double gpu_bw = m.gpu_bandwidth * sp.gpu_read_efficiency;
    const double ram_bw = m.ram_bandwidth * (unified ? sp.gpu_read_efficiency : sp.ram_read_efficiency);
    if ((r.gpu > 0 && gpu_bw <= 0) || (r.ram > 0 && ram_bw <= 0)) return v;
    const double L = static_cast<double>(std::max<int64_t>(1, c.layers));
    const double gpu_share = static_cast<double>(r.gpu_layers) / L;
    auto token_time = [&](int64_t context, double& gpu_s, double& ram_s) {
        const double kv_gpu = kv_read(p, l, unified ? 1.0 : gpu_share, context);
        const double kv_ram = unified ? 0 : kv_read(p, l, 1 - gpu_share, context);
        gpu_s = r.gpu > 0 || kv_gpu > 0 ? (r.gpu + kv_gpu) / gpu_bw : 0;
        ram_s = r.ram > 0 || kv_ram > 0 ? (r.ram + kv_ram) / ram_bw : 0;
        return gpu_s + ram_s;
    };
    // The small kernels each take a floor (the planner's 2 µs per kernel: 11 per layer, 6 more for MoE
    // routing) on the GPU; each change of pool costs a hand-over (copy + synchronisation).
    v.floor_s = (unified || r.gpu_layers > 0 ? static_cast<double>(r.gpu_layers) * 11 + static_cast<double>(r.moe_gpu_layers) * 6 : 0) *
                sp.kernel_floor_s;
    v.hops = r.hops;
    v.hop_s = static_cast<double>(r.hops) * sp.hop_s;
    v.gpu_read_bytes = r.gpu;
    v.ram_read_bytes = r.ram;
    const int64_t start = std::min<int64_t>(job.seq, decode_context);
    const double t = token_time(start, v.gpu_s, v.ram_s) + v.floor_s + v.hop_s;
    double g2 = 0, r2 = 0;
    const double t_full = token_time(job.seq, g2, r2) + v.floor_s + v.hop_s;
    v.known = t > 0;
    if (!v.known) return v;
    v.decode_tps = 1 / t;
    v.decode_low = v.decode_tps * (1 - sp.decode_range);
    v.decode_high = v.decode_tps * (1 + sp.decode_range);
    const double full_tps = 1 / t_full;
    v.bound = v.ram_s > v.gpu_s ? (unified ? "unified memory bandwidth" : "system RAM bandwidth") : "GPU memory bandwidth";
    // Prefill, per ubatch of u tokens: the matmuls at the GPU's rate (or the RAM pool's part by the CPU),
    // plus, with op offload, every RAM-resident weight copied to the GPU once per ubatch.
    const double u = static_cast<double>(std::max<int64_t>(1, std::min<int64_t>(mlx ? job.prefill_step_size : job.n_ubatch,
                                                                                    std::max<int64_t>(1, prompt_tokens))));
    const double active = 2 * std::max(1.0, p.m.params.active);
    const Gpu* gpu = job.gpu;
    const double rate = gpu ? gpu->tflops_bf16 * 1e12 * prefill_factor(*gpu) : 0;
    if (rate > 0 && !job.machine.cpu_only) {
        v.prefill_compute_s = active * u / rate;
        // token_embd stays on the CPU (its get_rows is not offloaded); everything else in RAM crosses PCIe.
        const double copied = mlx ? 0 : r.ram_weights - gguf_weights(p).token_embd;
        const bool copies = !unified && !mlx && job.op_offload && u >= 32 && copied > 0;
        v.prefill_copy_s = copies && m.pcie_bandwidth > 0 ? copied / (m.pcie_bandwidth * sp.pcie_efficiency) : 0;
        const bool cpu_part = !unified && !mlx && !job.op_offload && r.ram > 0;
        const double per_ubatch = v.prefill_compute_s + v.prefill_copy_s;
        if (!cpu_part && per_ubatch > 0) {
            v.prefill_tps = u / per_ubatch;
            v.prefill_low = v.prefill_tps * (1 - sp.prefill_range);
            v.prefill_high = v.prefill_tps * (1 + sp.prefill_range);
        }
    }
    v.decode_text = tps_text(v.decode_tps) + " tokens/s (" + tps_text(v.decode_low) + " – " + tps_text(v.decode_high) + ")";
    v.prefill_text = v.prefill_tps > 0 ? tps_text(v.prefill_tps) + " tokens/s (" + tps_text(v.prefill_low) + " – " +
                                             tps_text(v.prefill_high) + ")"
                                       : "not estimated (" + std::string(job.machine.cpu_only ? "no GPU: the CPU's compute rate is not modelled"
                                                                         : !job.op_offload ? "the CPU computes the experts in RAM; its rate is not modelled"
                                                                                           : "no compute rate for this GPU") + ")";
    v.text = "decode " + v.decode_text + ", " + tps_text(full_tps) + " tokens/s with the context full; prefill " + v.prefill_text;
    v.why = "each token reads " + gb_text(r.gpu) + (unified ? " of unified memory at " : " of GPU memory at ") +
            fixed_text(gpu_bw / 1e9, 1) + " GB/s" +
            (r.ram > 0 ? " and " + gb_text(r.ram) + " of system RAM at " + fixed_text(ram_bw / 1e9, 1) + " GB/s" : std::string()) +
            (r.hops > 0 ? ", crossing PCIe " + std::to_string(r.hops) + " times" : std::string()) + "; bound by the " + v.bound +
            (v.prefill_copy_s > 0 ? "; prefill copies " + gb_text(r.ram_weights) + " of weights in RAM to the GPU per ubatch of " +
                                        std::to_string(static_cast<int64_t>(u)) + " tokens (" + fixed_text(v.prefill_copy_s, 2) + " s)"
                                  : std::string());
    return v;
}

LocalSpeed local_speed_on(const Model& m, const Job& job, const Gpu& gpu, int64_t prompt_tokens, int64_t decode_context) {
    Job k = job;
    k.gpu = nullptr;
    for (const Gpu& g : gpu_catalog())
        if (std::string(g.id) == gpu.id) k.gpu = &g;
    const Plan p = make_plan(m, k);
    const Layout l = resolve_layout(m.config, k);
    const Step st = run_step(p, l, false);
    MachinePools pools = machine_pools(k.machine, k.gpu, k.gpus, gpu_bytes(gpu));
    pools.gpu_bandwidth = gpu.memory_tbps * 1e12;  // the request's figure (it may override the catalog's)
    if (pools.unified) pools.ram_bandwidth = pools.gpu_bandwidth;
    pools.pcie_bandwidth = pools.unified ? 0 : gpu.pcie_gbps * 1e9;
    return local_speed(p, l, st.breakdown, st.serving, pools, prompt_tokens, decode_context);
}

}  // namespace vramcalc
