// The layout recommender (training) and the serving roofline.
#include <algorithm>
#include <cmath>

#include "cluster/cluster.hpp"
#include "cluster/dims.hpp"
#include "local/local.hpp"
#include "local/speed_params.hpp"
#include "step/timeline.hpp"

namespace vramcalc {
namespace {

std::vector<int64_t> divisors(int64_t n, int64_t cap) {
    std::vector<int64_t> out;
    for (int64_t k = 1; k <= std::min(n, cap); ++k)
        if (n % k == 0) out.push_back(k);
    return out;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The serving layout search tries every size up to this many GPUs in order, bisects past it.
constexpr int64_t kServeSizesInOrder = 64;

// How each serving engine runs a decode step, as the planner needs it: data, one row per engine.
struct ServePreset {
    Engine engine;
    AllReduceImpl all_reduce;  // TP all-reduce inside the NVLink domain
    bool layer_split;          // splits a model across GPUs by layers only (no TP)
};
const ServePreset kServePresets[] = {
    {Engine::Custom, AllReduceImpl::Nccl, false},
    // vLLM: custom_all_reduce.py (one-shot / two-shot up to 8 MiB, NCCL past it)
    {Engine::Vllm, AllReduceImpl::VllmCustom, false},
    // SGLang: its TensorRT-LLM custom all-reduce kernels (sgl-kernel trt_reduce)
    {Engine::Sglang, AllReduceImpl::TrtCustom, false},
    // llama.cpp / Ollama: -sm layer, the default split: whole layers per GPU, run one after another
    {Engine::LlamaCpp, AllReduceImpl::Nccl, true},
    {Engine::Ollama, AllReduceImpl::Nccl, true},
};
const ServePreset& serve_preset(Engine e) {
    for (const auto& p : kServePresets)
        if (p.engine == e) return p;
    return kServePresets[0];
}

}  // namespace

Topology ClusterRequest::topology() const {
    const double latency = assume.latency_us * 1e-6, eff = assume.link_efficiency;
    Topology t;
    t.domain_link = {gpu.link, gpu.link_gbps * 1e9 * eff, latency};
    t.domain = gpu.domain;
    t.node_link = {"PCIe (" + std::to_string(static_cast<int>(gpu.pcie_gbps)) + " GB/s)", gpu.pcie_gbps * 1e9 * eff,
                   latency};
    t.per_node = gpu.per_node;
    t.fabric_link = {fabric.name, fabric.gbit_per_gpu / 8 * 1e9 * eff * fabric.efficiency, latency};
    return t;
}

std::vector<TrainStep> rank_layouts(const Model& model, const Job& job, const ClusterRequest& r) {
    const ModelConfig& c = model.config;
    const int64_t n = r.gpus;
    const int64_t tp_cap = std::min<int64_t>(8, std::max<int64_t>(r.gpu.domain, r.gpu.per_node));
    const int64_t global = r.global_batch > 0 ? r.global_batch : n * job.batch;
    std::vector<int64_t> cps = {1};
    for (int64_t cp : {2, 4, 8})  // context parallelism only pays for long sequences
        if (job.seq >= 16384 && job.seq % cp == 0) cps.push_back(cp);
    std::vector<TrainStep> out;
    for (int64_t tp = 1; tp <= std::min(tp_cap, n); tp *= 2) {
        if (n % tp != 0 || (c.heads > 0 && c.heads % tp != 0)) continue;
        for (int64_t pp : divisors(n / tp, std::min<int64_t>(c.layers > 0 ? c.layers : 1, 64))) {
            for (int64_t cp : cps) {
                if ((n / tp / pp) % cp != 0) continue;
                const int64_t dp = n / tp / pp / cp;
                std::vector<int64_t> eps = {1};
                if (c.is_moe())
                    for (int64_t ep = 2; ep <= std::min<int64_t>(dp * cp, 64); ep *= 2)
                        if ((dp * cp) % ep == 0 && c.experts % ep == 0) eps.push_back(ep);
                for (int64_t ep : eps)
                    for (int zero : {1, 3}) {
                        Parallel p;
                        p.tp = tp, p.pp = pp, p.cp = cp, p.dp = dp, p.ep = ep, p.zero = zero;
                        p.microbatches = std::max<int64_t>(1, ceil_div(global, dp * job.batch));
                        out.push_back(train_step(model, job, r, p));
                    }
            }
        }
    }
    // Fitting layouts fastest first; when none fits, the least memory first.
    std::stable_sort(out.begin(), out.end(), [](const TrainStep& a, const TrainStep& b) {
        if (a.fits != b.fits) return a.fits;
        return a.fits ? a.tokens_per_s > b.tokens_per_s : a.memory_bytes < b.memory_bytes;
    });
    return out;
}

ServeResult serve(const Model& model, const Job& job, const ClusterRequest& r) {
    const Dims d = dims_of(model, job);
    const Topology topo = r.topology();
    const double c = static_cast<double>(r.concurrency);
    const int64_t context = r.prompt_tokens + r.output_tokens;  // what each running sequence holds at its end
    Job j = job;
    j.mode = Mode::Inference;
    j.batch = r.concurrency;
    j.seq = context;
    auto memory_for = [&](int64_t tp, int64_t pp) {
        j.gpus = tp * pp, j.tp = tp, j.pp = pp;
        return compute_breakdown(model, j);
    };
    ServeResult s;
    if (r.auto_layout) {
        // The smallest tensor × pipeline split that fits: tensor parallel first (inside the
        // scale-up domain or node), pipeline stages beyond it; engines that split by layers take no TP.
        const int64_t tp_cap = serve_preset(job.engine).layer_split ? 1 : std::min<int64_t>(8, std::max<int64_t>(r.gpu.domain, r.gpu.per_node));
        bool found = false;
        const int64_t L = std::max<int64_t>(1, model.config.layers);
        int64_t largest = std::min(r.gpus, tp_cap * L);
        if (llama_cpp_like(job)) largest = std::min(largest, kLlamaCppMaxDevices);
        const auto heads_split = [&](int64_t tp) { return model.config.heads <= 0 || model.config.heads % tp == 0; };
        const auto fits = [&](int64_t tp, int64_t pp) { return memory_for(tp, pp).total() <= gpu_bytes(r.gpu); };
        // Sizes up to 64 in order, each with TP as large as divides it first.
        for (int64_t size = 1; size <= std::min<int64_t>(largest, kServeSizesInOrder) && !found; ++size)
            for (int64_t tp = std::min(tp_cap, size); tp >= 1 && !found; tp /= 2) {
                if (size % tp != 0 || !heads_split(tp)) continue;
                const int64_t pp = size / tp;
                if (pp > L) continue;
                if (fits(tp, pp)) s.tp = tp, s.pp = pp, found = true;
            }
        // Past 64 GPUs, per TP degree the fewest stages that fit, by bisection (per-GPU memory falls as
        // stages are added: fewer layers, and their KV, per stage); the smallest size wins, larger TP
        // first. A deep model with a million GPUs costs 4 × log2(layers) estimates instead of one per size.
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
        if (best_tp > 0) s.tp = best_tp, s.pp = best_pp, found = true;
        if (!found) {  // nothing fits: report the whole cluster as one replica
            s.tp = std::min(tp_cap, r.gpus);
            while (s.tp > 1 && (r.gpus % s.tp != 0 || (model.config.heads > 0 && model.config.heads % s.tp != 0))) s.tp /= 2;
            s.pp = std::min<int64_t>(r.gpus / s.tp, model.config.layers > 0 ? model.config.layers : 1);
        }
    } else {
        s.tp = r.layout.tp, s.pp = r.layout.pp;
    }
    s.replicas = std::max<int64_t>(1, r.gpus / (s.tp * s.pp));
    const Breakdown b = memory_for(s.tp, s.pp);
    s.memory_bytes = b.total();
    s.fits = s.memory_bytes <= gpu_bytes(r.gpu);
    const double tp = static_cast<double>(s.tp), pp = static_cast<double>(s.pp);

    // Decode reads every weight a step touches and the KV the running sequences hold: c sequences whose
    // context grows from the prompt to prompt + output (not the engine's whole pool). That KV is the
    // memory model's own for c sequences of that length with no engine pool (engine custom), per GPU.
    auto kv_at = [&](int64_t tokens) {
        Job k = j;
        k.engine = Engine::Custom;
        k.seq = tokens;
        k.gpus = s.tp * s.pp, k.tp = s.tp, k.pp = s.pp;
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
    s.decode_compute_s = c * (2 * d.matmul_params + attn_per_token) / (tp * pp) / gemm_rate;
    s.decode_compute_bound = s.decode_compute_s > s.decode_memory_s;
    // Tensor parallel: 2 all-reduces of c·h per layer (Megatron), as the engine runs them (its serve preset:
    // vLLM's custom all-reduce, SGLang's TensorRT-LLM kernels, one-shot / two-shot by size, else NCCL).
    const Link tp_link = collective_link_for(topo, 1, s.tp);
    const double token_act = c * d.hidden * d.act_bytes;
    const AllReduceImpl impl = serve_preset(job.engine).all_reduce;
    const bool in_domain = s.tp <= r.gpu.domain;
    const bool nvls = achieved(r.gpu).nvls && in_domain;
    const AllReduceChoice ar = engine_all_reduce(in_domain ? impl : AllReduceImpl::Nccl, token_act, s.tp, tp_link, nvls);
    s.allreduce = ar.algorithm;
    s.decode_comm_s = 2 * d.layers * ar.time_s;
    if (s.pp > 1) s.decode_comm_s += (pp - 1) * p2p_time(token_act, link_for(topo, s.tp, 2));
    // The small kernels of a decode step each take at least a kernel's floor, 2 µs ("a triton kernel with
    // a single element read/write on an H100", torchao roofline_utils.py KERNEL_LAUNCH_OVERHEAD_SEC), with
    // CUDA graphs as without: per layer 2 norms, RoPE on q and k, the attention core's 3 kernels (scores,
    // softmax, weighted sum), the activation and its gate product, 2 residual adds = 11, and for a routed
    // MoE layer the router's top-k, softmax, weights, gather and weighted sum = 6 more (the GEMVs' own
    // time is the weights they read).
    const double moe_share = d.layers > 0 ? d.moe_layers / d.layers : 0;
    s.decode_kernel_s = d.layers * (11 + 6 * moe_share) * 2e-6;
    // Pipeline stages run one after another for a token: pp × the per-stage time.
    s.token_s = pp * std::max(s.decode_memory_s, s.decode_compute_s) + s.decode_kernel_s + s.decode_comm_s;
    s.bound_tokens_per_s = 1 / (pp * (s.weights_read_bytes + s.kv_read_bytes) / bw);
    s.tokens_per_s_per_seq = 1 / s.token_s;
    s.tokens_per_s_replica = c / s.token_s;
    s.tokens_per_s_cluster = s.tokens_per_s_replica * static_cast<double>(s.replicas);

    // Prefill of one prompt in compute-bound chunks (the engine's max_num_batched_tokens when set, else
    // the whole prompt): 2 FLOPs per matmul parameter per token at the GPU's achievable GEMM rate, and
    // causal attention at the attention kernel's forward rate; never faster than one read of the
    // weights per chunk.
    const double P = static_cast<double>(r.prompt_tokens);
    const double chunk = job.max_num_batched_tokens > 0 ? std::min<double>(P, static_cast<double>(job.max_num_batched_tokens)) : P;
    const double chunks = std::ceil(P / chunk);
    const double linear_s = P * 2 * d.matmul_params / (tp * gemm_rate);
    const double attn_flops = d.layers * P * P * d.heads * (d.qk_dim + d.v_dim) / tp;  // causal: half of 2·P²·(dqk+dv)
    const double prefill_compute = linear_s + attention_s(rt, attn_flops, d.qk_dim, P, false);
    const double prefill_memory = chunks * pp * b.bytes[kWeights] / (bw * r.assume.memory_efficiency);
    const double prompt_act = P * d.hidden * d.act_bytes;
    double prefill_comm = 2 * d.layers * chunks *
                          engine_all_reduce(in_domain ? impl : AllReduceImpl::Nccl, prompt_act / chunks, s.tp, tp_link, nvls).time_s;
    if (s.pp > 1) prefill_comm += (pp - 1) * p2p_time(prompt_act, link_for(topo, s.tp, 2));
    s.prefill_s = std::max(prefill_compute, prefill_memory) + prefill_comm;
    s.ttft_s = s.prefill_s + s.token_s;
    // llama.cpp, Ollama and MLX read each weight where it lives, GPU memory or system RAM (core/local/speed.cpp).
    if (runs_locally(job)) {
        Job k = j;
        k.gpus = s.tp * s.pp, k.tp = s.tp, k.pp = s.pp;
        const LocalSpeed ls = local_speed_on(model, k, r.gpu, r.prompt_tokens, r.prompt_tokens + r.output_tokens / 2);
        if (ls.known) {
            s.token_s = 1 / ls.decode_tps;
            const SpeedParams& sp = speed_params();  // the same reads at 100 % of each pool's bandwidth
            s.bound_tokens_per_s = 1 / (ls.gpu_s * sp.gpu_read_efficiency + ls.ram_s * sp.ram_read_efficiency);
            s.tokens_per_s_per_seq = ls.decode_tps;
            s.tokens_per_s_replica = c / s.token_s;
            s.tokens_per_s_cluster = s.tokens_per_s_replica * static_cast<double>(s.replicas);
            if (ls.prefill_tps > 0) s.prefill_s = P / ls.prefill_tps;
            s.ttft_s = s.prefill_s + s.token_s;
        }
    }
    return s;
}

}  // namespace vramcalc
