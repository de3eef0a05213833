// Serving: the layout (the verdict's first), the decode step and the prefill.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "cluster/cluster.hpp"
#include "cluster/decode_floors.hpp"
#include "cluster/gemm_table.hpp"
#include "cluster/dims.hpp"
#include "job/layout.hpp"
#include "local/local.hpp"
#include "local/speed_params.hpp"
#include "step/timeline.hpp"

namespace vramcalc {
namespace {

// The serving layout search tries every size up to this many GPUs in order, bisects past it.
constexpr int64_t kServeSizesInOrder = 64;

}  // namespace

ServeResult serve(const Model& model, const Job& job, const ClusterRequest& r) {
    const Dims d = dims_of(model, job);
    const Topology topo = r.topology();
    const double c = static_cast<double>(r.concurrency);
    const int64_t context = r.prompt_tokens + r.output_tokens;  // what each running sequence holds at its end
    // The memory of a layout is the verdict's (layout_memory): the job's own batch and length, unless the
    // request asks for another load (concurrency, prompt or output tokens).
    Job j = job;
    j.mode = Mode::Inference;
    if (r.load_given) j.batch = r.concurrency, j.seq = context;
    auto memory_for = [&](int64_t tp, int64_t pp) {
        j.gpus = tp * pp, j.tp = tp, j.pp = pp;
        return layout_memory(model, j, r.gpu);
    };
    const ServePreset& preset = serve_preset(job.engine);
    ServeResult s;
    if (r.auto_layout) {
        // The verdict's layout first: the job over all the cluster's GPUs as the estimate lays it out (TP inside
        // the node, stages beyond; llama.cpp and Ollama: its -sm split). When it holds, it is timed; the
        // smallest split that holds is then the alternative, replicated over the rest.
        int64_t vtp = 1, vpp = 1;
        Job at_n = job;
        at_n.gpus = r.gpus;
        const bool verdict_layout = inference_layout_for(model.config, at_n, r.gpus, vtp, vpp);
        const bool verdict_fits = verdict_layout && memory_for(vtp, vpp).fits;
        // The smallest tensor × pipeline split that fits: tensor parallel first (inside the
        // scale-up domain or node), pipeline stages beyond it; engines that split by layers take no TP.
        const int64_t tp_cap = preset.layer_split ? 1 : std::min<int64_t>(8, std::max<int64_t>(r.gpu.domain, r.gpu.per_node));
        bool found = false;
        int64_t stp = 1, spp = 1;
        const int64_t L = std::max<int64_t>(1, model.config.layers);
        int64_t largest = std::min(r.gpus, tp_cap * L);
        if (llama_cpp_like(job)) largest = std::min(largest, kLlamaCppMaxDevices);
        const auto heads_split = [&](int64_t tp) { return model.config.heads <= 0 || model.config.heads % tp == 0; };
        const auto fits = [&](int64_t tp, int64_t pp) { return memory_for(tp, pp).fits; };
        // Sizes up to 64 in order, each with TP as large as divides it first.
        for (int64_t size = 1; size <= std::min<int64_t>(largest, kServeSizesInOrder) && !found; ++size)
            for (int64_t tp = std::min(tp_cap, size); tp >= 1 && !found; tp /= 2) {
                if (size % tp != 0 || !heads_split(tp)) continue;
                const int64_t pp = size / tp;
                if (pp > L) continue;
                if (fits(tp, pp)) stp = tp, spp = pp, found = true;
            }
        // Past 64 GPUs, per TP degree the fewest stages that fit, by bisection (per-GPU memory falls as
        // stages are added: fewer layers, and their KV, per stage); the smallest size wins, larger TP first.
        int64_t best_tp = 0, best_pp = 0;
        for (int64_t tp = tp_cap; tp >= 1 && !found && largest > kServeSizesInOrder; tp /= 2) {
            int64_t lo = kServeSizesInOrder / tp, hi = std::min(L, largest / tp);  // fits(hi), not lo
            if (!heads_split(tp) || hi <= lo || !fits(tp, hi)) continue;
            while (hi - lo > 1) {
                const int64_t mid = lo + (hi - lo) / 2;
                (fits(tp, mid) ? hi : lo) = mid;
            }
            if (best_tp == 0 || tp * hi < best_tp * best_pp) best_tp = tp, best_pp = hi;
        }
        if (best_tp > 0) stp = best_tp, spp = best_pp, found = true;
        if (verdict_fits) {
            s.tp = vtp, s.pp = vpp;
            if (found && stp * spp < vtp * vpp) s.alt_tp = stp, s.alt_pp = spp;
        } else if (found) {
            s.tp = stp, s.pp = spp;
            if (verdict_layout) s.verdict_tp = vtp, s.verdict_pp = vpp;
        } else {  // nothing fits: report the whole cluster as one replica
            s.tp = std::min(tp_cap, r.gpus);
            while (s.tp > 1 && (r.gpus % s.tp != 0 || (model.config.heads > 0 && model.config.heads % s.tp != 0))) s.tp /= 2;
            s.pp = std::min<int64_t>(r.gpus / s.tp, model.config.layers > 0 ? model.config.layers : 1);
        }
    } else {
        s.tp = r.layout.tp, s.pp = r.layout.pp;
    }
    s.replicas = std::max<int64_t>(1, r.gpus / (s.tp * s.pp));
    const LayoutMemory mem = memory_for(s.tp, s.pp);
    s.memory_bytes = mem.bytes;
    s.fits = mem.fits;
    j.gpus = s.tp * s.pp, j.tp = s.tp, j.pp = s.pp;
    const Breakdown b = compute_breakdown(model, j);
    const double tp = static_cast<double>(s.tp), pp = static_cast<double>(s.pp);

    // Decode reads every weight a step touches and the KV the running sequences hold: c sequences whose
    // context grows from the prompt to prompt + output (not the engine's whole pool). That KV is the
    // memory model's own for c sequences of that length with no engine pool (engine custom), per GPU.
    auto kv_at = [&](int64_t tokens) {
        Job k = j;
        k.engine = Engine::Custom;
        k.batch = r.concurrency;
        k.seq = tokens;
        return compute_breakdown(model, k).bytes[kKvCache];
    };
    s.kv_prompt_bytes = kv_at(r.prompt_tokens);
    s.kv_end_bytes = kv_at(context);
    s.kv_read_bytes = (s.kv_prompt_bytes + s.kv_end_bytes) / 2;  // linear growth over the output
    // MoE: a step over c sequences touches 1 − (1 − k/E)^c of the experts (uniform routing).
    const double f_routed = d.total_params > 0 ? d.routed_params / d.total_params : 0;
    const double touched = d.experts > 0 ? 1 - std::pow(1 - d.experts_per_token / d.experts, c) : 1;
    s.weights_read_bytes = b.bytes[kWeights] * ((1 - f_routed) + f_routed * touched);
    const double bw = r.gpu.memory_tbps * 1e12;
    s.decode_memory_s = (s.weights_read_bytes + s.kv_read_bytes) / (bw * r.assume.memory_efficiency);
    const Rates& rt = r.rates;
    const double avg_context = static_cast<double>(r.prompt_tokens) + static_cast<double>(r.output_tokens) / 2;
    const double attn_per_token = 2 * d.layers * avg_context * d.heads * (d.qk_dim + d.v_dim);
    const double gemm_rate = rt.fixed > 0 ? rt.peak16 * rt.fixed : rt.gemm16;
    // Decode's GEMMs run at M = c rows: their rate by shape (cluster/gemm_table.hpp) at a hidden-wide GEMM.
    const double decode_rate = rt.fixed > 0 ? gemm_rate : gemm_rate * gemm_efficiency(c, d.hidden / tp, d.hidden, rt.blackwell);
    s.decode_compute_s = c * (2 * d.matmul_params + attn_per_token) / (tp * pp) / decode_rate;
    s.decode_compute_bound = s.decode_compute_s > s.decode_memory_s;
    // Tensor parallel: 2 all-reduces of c·h per layer (Megatron), as the engine runs them (its serve preset:
    // vLLM's custom all-reduce, SGLang's TensorRT-LLM kernels, one-shot / two-shot by size, else NCCL).
    const Link tp_link = collective_link_for(topo, 1, s.tp);
    const double token_act = c * d.hidden * d.act_bytes;
    const bool in_domain = s.tp <= r.gpu.domain;
    const bool nvls = achieved(r.gpu).nvls && in_domain;
    const AllReduceChoice ar = engine_all_reduce(in_domain ? preset.all_reduce : AllReduceImpl::Nccl, token_act, s.tp, tp_link, nvls);
    s.allreduce = ar.algorithm;
    s.decode_comm_s = 2 * d.layers * ar.time_s;
    if (s.pp > 1) s.decode_comm_s += (pp - 1) * p2p_time(token_act, link_for(topo, s.tp, 2));
    // The floors of a decode step (cluster/decode_floors.hpp): small kernels, the fused-MoE kernels' minimum,
    // and the host: launches without CUDA graphs, the engine's scheduler per step.
    const DecodeFloors f = decode_floors(model, job, d, r, s, bw);
    s.cuda_graphs = f.cuda_graphs;
    s.decode_kernel_s = f.kernels_s;
    s.decode_kernels = f.kernels;
    s.decode_kernel_each_s = f.kernel_each_s;
    s.decode_moe_floor_s = f.moe_s;
    const double gpu_s = pp * std::max(s.decode_memory_s, s.decode_compute_s) + f.kernels_s + f.moe_s + s.decode_comm_s;
    // The host runs ahead of the GPU unless its own work per step is longer (eager launches), and an engine
    // without an overlapped scheduler adds its per-step time on top.
    const double device_s = std::max(gpu_s, f.launch_s);
    s.decode_host_s = f.host_share > 0 ? device_s * f.host_share / (1 - f.host_share) : f.host_s;
    s.token_s = device_s + s.decode_host_s;
    s.decode_launch_s = f.launch_s;
    s.bound_tokens_per_s = 1 / (pp * (s.weights_read_bytes + s.kv_read_bytes) / bw);
    s.tokens_per_s_per_seq = 1 / s.token_s;
    s.tokens_per_s_replica = c / s.token_s;
    s.tokens_per_s_cluster = s.tokens_per_s_replica * static_cast<double>(s.replicas);

    // Prefill of one prompt in compute-bound chunks (the engine's max_num_batched_tokens when set, else
    // the whole prompt): 2 FLOPs per matmul parameter per token at the GPU's sustained GEMM rate, and
    // causal attention at the attention kernel's forward rate; never faster than one read of the
    // weights per chunk.
    const double P = static_cast<double>(r.prompt_tokens);
    const double chunk = job.max_num_batched_tokens > 0 ? std::min<double>(P, static_cast<double>(job.max_num_batched_tokens)) : P;
    const double chunks = std::ceil(P / chunk);
    const double prefill_rate = rt.fixed > 0 ? gemm_rate : gemm_rate * gemm_efficiency(chunk, d.hidden / tp, d.hidden, rt.blackwell);
    const double linear_s = P * 2 * d.matmul_params / (tp * prefill_rate);
    const double attn_flops = d.layers * P * P * d.heads * (d.qk_dim + d.v_dim) / tp;  // causal: half of 2·P²·(dqk+dv)
    const double prefill_compute = linear_s + attention_s(rt, attn_flops, d.qk_dim, P, false);
    const double prefill_memory = chunks * pp * b.bytes[kWeights] / (bw * r.assume.memory_efficiency);
    const double prompt_act = P * d.hidden * d.act_bytes;
    double prefill_comm = 2 * d.layers * chunks *
                          engine_all_reduce(in_domain ? preset.all_reduce : AllReduceImpl::Nccl, prompt_act / chunks, s.tp, tp_link, nvls).time_s;
    if (s.pp > 1) prefill_comm += (pp - 1) * p2p_time(prompt_act, link_for(topo, s.tp, 2));
    s.prefill_s = std::max(prefill_compute, prefill_memory) + prefill_comm + chunks * (f.kernels_s + s.decode_host_s);
    s.ttft_s = s.prefill_s + s.token_s;
    // llama.cpp, Ollama and MLX read each weight where it lives, GPU memory or system RAM (core/local/speed.cpp).
    if (runs_locally(job)) {
        Job k = j;
        k.gpus = s.tp * s.pp, k.tp = s.tp, k.pp = s.pp;
        const LocalSpeed ls = local_speed_on(model, k, r.gpu, r.prompt_tokens, r.prompt_tokens + r.output_tokens / 2);
        if (ls.known) {
            s.local_speed = true;
            s.local_decode_lo = ls.decode_low / ls.decode_tps - 1, s.local_decode_hi = ls.decode_high / ls.decode_tps - 1;
            s.token_s = 1 / ls.decode_tps;
            s.decode_host_s = 0, s.decode_launch_s = 0;
            const SpeedParams& sp = speed_params();  // the same reads at 100 % of each pool's bandwidth
            s.bound_tokens_per_s = 1 / (ls.gpu_s * sp.gpu_read_efficiency + ls.ram_s * sp.ram_read_efficiency);
            s.tokens_per_s_per_seq = ls.decode_tps;
            s.tokens_per_s_replica = c / s.token_s;
            s.tokens_per_s_cluster = s.tokens_per_s_replica * static_cast<double>(s.replicas);
            if (ls.prefill_tps > 0) s.prefill_s = P / ls.prefill_tps;
            s.ttft_s = s.prefill_s + s.token_s;
        }
    }
    s.tpot_s = s.token_s + (c - 1) * s.prefill_s / static_cast<double>(std::max<int64_t>(1, r.output_tokens));
    return s;
}

}  // namespace vramcalc
