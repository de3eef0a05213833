// Training step time: compute + pipeline bubble + each collective on its link.
#include <algorithm>
#include <cmath>

#include "cluster/cluster.hpp"
#include "cluster/dims.hpp"
#include "text/units.hpp"
#include "cluster/text.hpp"
#include "step/timeline.hpp"

namespace vramcalc {
namespace {

std::string n_text(double v) { return plain_number(v); }

bool trains_adapters(const Job& job) { return job.mode == Mode::LoRA || job.mode == Mode::QLoRA; }

// Model FLOPs per token, the MFU numerator (Kaplan et al. 2020 §2.1; PaLM paper appendix B):
// 6 per matmul parameter (2 forward, 4 backward) plus the attention scores,
// 6 · L · s · heads · (d_qk + d_v) per token (12·L·h·s when d_qk = d_v = h/heads),
// counted without the causal halving, as PaLM and torchtitan do. Adapter training
// skips the weight gradients of the frozen base: 4 instead of 6 (and 2/3 of the
// attention), an approximation that ignores the adapters' own small matmuls.
double model_flops_per_token(const Dims& d, const Job& job) {
    const double s = static_cast<double>(job.seq);
    const double f = 6 * d.matmul_params + 6 * d.layers * s * d.heads * (d.qk_dim + d.v_dim);
    return trains_adapters(job) ? f * 2 / 3 : f;
}

// What the GPUs actually execute: full recomputation repeats the forward pass
// (8 instead of 6 per parameter: Korthikanti et al. 2022, arXiv 2205.05198, §5);
// selective recomputation repeats only the attention-score part.
double hardware_flops_per_token(const Dims& d, const Job& job) {
    const double model = model_flops_per_token(d, job);
    const double s = static_cast<double>(job.seq);
    const double attention = 6 * d.layers * s * d.heads * (d.qk_dim + d.v_dim);
    if (job.checkpointing == Checkpointing::Full) return model * 4 / 3;
    if (job.checkpointing == Checkpointing::Selective) return model + attention / 3;
    // per-op SAC recomputes every second matmul of the forward (half of its third of the work)
    if (job.checkpointing == Checkpointing::SelectiveOp) return model * 7 / 6;
    return model;
}

}  // namespace

double train_memory(const Model& model, const Job& job, const Parallel& p) {
    // The estimate's own per-GPU memory (compute_breakdown, step/timeline.cpp: the peak of the step's
    // timeline with the job's memory kind), for the job laid out as this layout: whatever the memory
    // model knows of FSDP, pipeline stages, context and expert parallelism flows through here.
    Job j = job;
    j.gpus = p.gpus();
    j.tp = p.tp;
    j.pp = p.pp;
    j.cp = p.cp;
    j.zero = p.zero;
    j.ep = p.ep;
    j.grad_accum = p.microbatches;  // micro-batches per optimizer step
    Breakdown b = compute_breakdown(model, j);
    // Where the memory model does not yet split routed experts over EP for training (the same figure
    // with ep 1), the planner does: routed experts over ep ranks instead of tp (Megatron-Core expert-
    // tensor-parallel size 1), the ZeRO divisor the memory model applied kept.
    if (p.ep > 1 && model.params.total > 0) {
        Job one = j;
        one.ep = 1;
        if (compute_breakdown(model, one).total() == b.total()) {
            const double f = sum_params(model.tensors, [](const Tensor& t) { return t.kind == TensorKind::RoutedExpert; }) /
                             model.params.total;
            const double scale = (1 - f) + f * static_cast<double>(p.tp) / static_cast<double>(p.ep);
            for (int t : {kWeights, kGradients, kOptimizer}) b.bytes[t] *= scale;
        }
    }
    return b.total();
}

const char* schedule_name(Schedule s) {
    switch (s) {
        case Schedule::GPipe: return "GPipe";
        case Schedule::OneF1B: return "1F1B";
        case Schedule::Interleaved: return "interleaved 1F1B";
        case Schedule::ZeroBubble: return "zero bubble (ZB-H1)";
        case Schedule::ZeroBubbleV: return "zero bubble V (ZBV)";
        case Schedule::DualPipe: return "DualPipe";
    }
    return "";
}

namespace {

// The pipeline bubble of a schedule, in seconds, from one micro-batch's forward F, backward B (input and
// weight gradients) and weight-gradient part W on a stage (DeepSeek-V3 report, Table 2, and the papers):
// GPipe (Huang et al. 2019) and 1F1B (Narayanan et al. 2021 §2.2): (p − 1)(F + B); interleaved with v
// chunks: (p − 1)(F + B)/v; ZB-H1 (Qi et al. 2023, arXiv 2401.10241 §3): (p − 1)(F + B − 2W); ZBV (two
// chunks per rank in a V, Qi et al. 2024): half of that; DualPipe: (p/2 − 1)(F&B + B − 3W) with the
// overlapped F&B chunk taken as F + B.
double bubble_of(Schedule s, double p, double v, double F, double B, double W, std::string& why) {
    if (p <= 1) return 0;
    const std::string fb = " with F = " + duration_text(F) + ", B = " + duration_text(B) + ", W = " + duration_text(W);
    switch (s) {
        case Schedule::GPipe:
        case Schedule::OneF1B:
            why = "(p − 1)(F + B)" + fb;
            return (p - 1) * (F + B);
        case Schedule::Interleaved:
            why = "(p − 1)(F + B)/v, v = " + plain_number(v) + fb;
            return (p - 1) * (F + B) / v;
        case Schedule::ZeroBubble:
            why = "(p − 1)(F + B − 2W)" + fb;
            return (p - 1) * std::max(0.0, F + B - 2 * W);
        case Schedule::ZeroBubbleV:
            why = "(p − 1)(F + B − 2W)/2" + fb;
            return (p - 1) * std::max(0.0, F + B - 2 * W) / 2;
        case Schedule::DualPipe:
            why = "(p/2 − 1)(F&B + B − 3W)" + fb;
            return std::max(0.0, p / 2 - 1) * std::max(0.0, F + 2 * B - 3 * W);
    }
    return 0;
}

}  // namespace

TrainStep train_step(const Model& model, const Job& job, const ClusterRequest& r, const Parallel& p) {
    TrainStep st;
    st.layout = p;
    const Dims d = dims_of(model, job);
    const Topology topo = r.topology();
    const double tp = static_cast<double>(p.tp), pp = static_cast<double>(p.pp), cp = static_cast<double>(p.cp);
    const double m = static_cast<double>(p.microbatches), v = static_cast<double>(p.virtual_stages);
    const double b = static_cast<double>(job.batch), s = static_cast<double>(job.seq);
    const double gpus = static_cast<double>(p.gpus());
    const bool full = job.checkpointing == Checkpointing::Full;

    st.tokens_per_step = static_cast<double>(p.dp) * m * b * s;
    st.model_flops_per_token = model_flops_per_token(d, job);
    st.hardware_flops_per_token = hardware_flops_per_token(d, job);
    // The compute, op by op, on the last stage (cluster/step_ops.cpp).
    StageShape shape;
    shape.tokens = b * s / cp, shape.seq = s, shape.tp = tp, shape.pp = pp, shape.cp = cp;
    shape.ep = static_cast<double>(p.ep), shape.dp = static_cast<double>(p.dp), shape.zero = p.zero;
    shape.microbatches = m, shape.recipe = r.recipe, shape.fused = r.fused;
    const StepCompute sc = step_compute(model, job, d, r.rates, shape);
    st.ops = sc.ops;
    st.compute_s = sc.total_s;
    const Schedule schedule = p.virtual_stages > 1 && r.schedule == Schedule::OneF1B ? Schedule::Interleaved : r.schedule;
    st.bubble_s = bubble_of(schedule, pp, v, sc.forward_s, sc.backward_s, sc.weight_grad_s, st.bubble_why);
    if (st.bubble_s > 0) st.bubble_why = std::string(schedule_name(schedule)) + ": " + st.bubble_why;
    st.schedule = p.pp > 1 ? schedule_name(schedule) : "no pipeline";

    // One micro-batch's hidden states on one GPU: b · s/cp · h elements.
    const double act = b * (s / cp) * d.hidden * d.act_bytes;
    const double layers_here = d.layers / pp;

    auto add = [&](const char* key, std::string label, const Link& link, int64_t group, double bytes, double time,
                   bool hideable, std::string why) {
        CommTerm c{key, std::move(label), link.name, group, bytes, time, hideable ? -1 : time, std::move(why)};
        st.comms.push_back(std::move(c));
    };
    const std::string per_mb = " × " + n_text(m) + " micro-batches";

    if (p.tp > 1) {
        // Megatron TP (Shoeybi et al. 2019, arXiv 1909.08053, §3): 2 all-reduces of b·s·h per layer
        // forward and 2 backward (+2 when the forward is recomputed). Sequence parallelism
        // (Korthikanti et al. 2022) turns each into a reduce-scatter + all-gather of the same volume
        // and time. torchtitan and Megatron train with sequence parallelism, so these are NCCL
        // reduce-scatters and all-gathers: rings (the NVLS in-switch reduction is taken for all-reduces
        // only, as the serving engines call them). What hides is the framework's (TpOverlap): the overlap
        // switch hides the forward's collectives and the backward's all-gathers; the backward's 2
        // reduce-scatters per layer hide behind the weight-gradient GEMMs where the framework does that.
        const double per_layer = full ? 6 : 4;
        const Link link = collective_link_for(topo, 1, p.tp);
        const double half = engine_all_reduce(AllReduceImpl::Nccl, act, p.tp, link, false).time_s / 2;  // one RS or AG
        const double rs_bwd = m * layers_here * 2;                        // backward reduce-scatters
        const double rest = m * layers_here * (2 * per_layer) - rs_bwd;   // every other collective
        const TpOverlap& o = r.tp_overlap;
        const bool rs_hidden = r.assume.overlap_tp ? o.bwd_rs_overlapped : o.bwd_rs_under_wgrad;
        const std::string what = " of b·s·h = " + gb_text(act) + " each, NCCL ring over " + link.name;
        if (r.assume.overlap_tp || rs_hidden) {
            const double hidden = (r.assume.overlap_tp ? rest : 0) + (rs_hidden ? rs_bwd : 0);
            add("tp", "TP collectives overlapped with compute", link, p.tp, hidden * act, hidden * half, true,
                n_text(hidden / (m * layers_here)) + " reduce-scatters / all-gathers per layer × " + n_text(layers_here) +
                    " layers" + per_mb + what);
        }
        const double waiting = m * layers_here * 2 * per_layer - (r.assume.overlap_tp ? rest : 0) - (rs_hidden ? rs_bwd : 0);
        if (waiting > 0)
            add("tp", r.assume.overlap_tp ? "TP reduce-scatters of the backward (not overlapped)" : "TP reduce-scatter + all-gather of activations",
                link, p.tp, waiting * act, waiting * half, false,
                n_text(waiting / (m * layers_here)) + " reduce-scatters / all-gathers per layer on the critical path × " +
                    n_text(layers_here) + " layers" + per_mb + what);
    }
    if (p.pp > 1) {
        // Pipeline: each micro-batch's activations (sequence-parallel shard, ÷ TP) go forward and their
        // gradients back once per model chunk.
        const double sends = 2 * m * v;
        const double bytes = act / tp;
        const Link& link = link_for(topo, p.tp * p.cp * p.dp, 2);
        // Megatron overlaps the interleaved schedule's sends with compute (the framework's step preset,
        // parse.cpp); torch.distributed.pipelining waits on them.
        const bool hidden = r.overlap_pp && p.virtual_stages > 1;
        add("pp", "PP send/receive between stages", link, 2, sends * bytes, sends * p2p_time(bytes, link), hidden,
            n_text(sends) + " sends (forward + backward" + (p.virtual_stages > 1 ? " × " + n_text(v) + " chunks" : "") +
                per_mb + ") of " + gb_text(bytes) + " over " + link.name);
    }
    if (p.ep > 1 && d.moe_layers > 0) {
        // Expert parallelism: dispatch and combine all-to-alls per MoE layer, forward and backward
        // (+2 with recomputation), of each routed token's hidden state, top-k times. Inside the NVLink
        // domain every copy crosses NVLink; across nodes, DeepSeek-V3's dispatch (report §3.2.2) sends a
        // token once to each node holding one of its experts (at most node_limit = 4 of them) over the
        // fabric and forwards it over NVLink inside the node: the fabric carries the distinct remote nodes
        // (n·(1 − (1 − 1/n)^k) for n nodes, capped by the limit), NVLink the k copies, both at once.
        // Dispatch in fp8 (dispatch_bytes 1) halves the forward dispatch; combine and backward stay bf16.
        const double per_layer = full ? 6 : 4;
        const double count = m * (d.moe_layers / pp);
        const double tokens = b * (s / cp) / tp, k = d.experts_per_token, h = d.hidden;
        const double dispatch = r.dispatch_bytes > 0 ? r.dispatch_bytes : d.act_bytes;
        const double bytes_per_copy = (dispatch + (per_layer - 1) * d.act_bytes) / per_layer;  // mean over the all-to-alls
        const int64_t span = p.tp * p.cp * p.ep;
        const Link& nv = link_for(topo, p.tp * p.cp, std::min<int64_t>(p.ep, std::max<int64_t>(1, r.gpu.domain / (p.tp * p.cp))));
        double time = 0, bytes = 0;
        std::string how;
        if (span <= r.gpu.domain || span <= r.gpu.per_node) {
            const Link& link = link_for(topo, p.tp * p.cp, p.ep);
            bytes = tokens * k * h * bytes_per_copy;
            time = per_layer * all_to_all_time(bytes, p.ep, link);
            how = "top-" + n_text(k) + " copies of h over " + link.name;
        } else {
            const double nodes = std::ceil(static_cast<double>(span) / static_cast<double>(r.gpu.per_node));
            double distinct = nodes * (1 - std::pow(1 - 1 / nodes, k));
            if (r.node_limit > 0) distinct = std::min(distinct, static_cast<double>(r.node_limit));
            const double remote = distinct * (nodes - 1) / nodes;
            const double fabric_bytes = tokens * remote * h * bytes_per_copy;
            const double nv_bytes = tokens * k * h * bytes_per_copy;
            const double t_fabric = fabric_bytes / topo.fabric_link.bytes_per_s + topo.fabric_link.latency_s;
            const double t_nv = nv_bytes / nv.bytes_per_s + nv.latency_s;
            time = per_layer * std::max(t_fabric, t_nv);
            bytes = fabric_bytes + nv_bytes;
            how = printf_text("%.2f", remote) + " remote nodes per token over " + topo.fabric_link.name + " (of " +
                  plain_number(nodes) + (r.node_limit > 0 ? ", at most " + n_text(static_cast<double>(r.node_limit)) : "") +
                  "), top-" + n_text(k) + " copies over NVLink";
        }
        const bool hidden = r.assume.overlap_ep || r.schedule == Schedule::DualPipe;
        const Link& shown = span > r.gpu.per_node && span > r.gpu.domain ? topo.fabric_link : link_for(topo, p.tp * p.cp, p.ep);
        add("ep", "EP all-to-all of routed tokens", shown, p.ep, count * per_layer * bytes, count * time, hidden,
            n_text(per_layer) + " all-to-alls per MoE layer × " + n_text(d.moe_layers / pp) + " layers" + per_mb + ": " + how +
                (r.dispatch_bytes > 0 ? ", dispatch at " + n_text(r.dispatch_bytes) + " byte per element" : "") +
                (hidden ? ", overlapped with compute" : ""));
    }
    if (p.cp > 1) {
        // Ring attention (Liu et al. 2023; Megatron context parallelism): each layer passes the K/V
        // chunk around the cp ring, cp−1 hops forward and twice that backward (K/V and their
        // gradients); it overlaps the attention computation.
        const double chunk = b * (s / cp) * d.kv_width / std::min(tp, d.kv_heads) * d.act_bytes;
        const double hops = m * layers_here * 3 * (cp - 1);
        const Link& link = link_for(topo, p.tp, p.cp);
        add("cp", "CP ring exchange of K/V", link, p.cp, hops * chunk, hops * p2p_time(chunk, link), true,
            n_text(3 * (cp - 1)) + " hops per layer × " + n_text(layers_here) + " layers" + per_mb + " of a " +
                gb_text(chunk) + " K/V chunk over " + link.name);
    }
    if (p.dp * p.cp > 1) {
        // Data-parallel gradient synchronisation over the dp × cp ranks holding the same weights
        // (ZeRO paper, Rajbhandari et al. 2019, §5 and §7: stage 0 all-reduce = 2Ψ, stages 1–2
        // reduce-scatter + all-gather = 2Ψ, stage 3 all-gather forward and backward + reduce-scatter
        // = 3Ψ, every micro-batch for FSDP). Expert weights synchronise over dp·cp/ep ranks.
        const double trainable = trains_adapters(job) ? trainable_params(model, job) : d.total_params;
        const double routed = trains_adapters(job) ? 0 : d.routed_params;
        const double expert_split = p.ep > 1 ? static_cast<double>(p.ep) : tp;
        const double grad_dense = (trainable - routed) / (tp * pp), grad_expert = routed / (pp * expert_split);
        const double weight_dense = (d.total_params - d.routed_params) / (tp * pp);
        const double weight_expert = d.routed_params / (pp * expert_split);
        const int64_t n_dense = p.dp * p.cp, n_expert = std::max<int64_t>(1, p.dp * p.cp / p.ep);
        const Link l_dense = collective_link_for(topo, p.tp, n_dense);
        const Link l_expert = collective_link_for(topo, p.tp * p.ep, n_expert);
        const double gb = r.assume.grad_reduce_bytes;
        // torchao float8 with enable_fsdp_float8_all_gather: the converted linears' weights travel in fp8.
        const double linear_share = d.total_params > 0 ? (d.matmul_params - static_cast<double>(model.config.vocab) * d.hidden) / d.total_params : 0;
        const double wb = r.recipe && r.fp8_all_gather ? d.act_bytes - (d.act_bytes - 1) * std::clamp(linear_share, 0.0, 1.0) : d.act_bytes;
        double time = 0, bytes = 0;
        std::string label, why;
        auto both = [&](auto&& one) { one(grad_dense, weight_dense, n_dense, l_dense); one(grad_expert, weight_expert, n_expert, l_expert); };
        if (p.zero == 0) {
            label = "DP all-reduce of gradients";
            both([&](double g, double, int64_t n, const Link& l) { time += all_reduce_time(g * gb, n, l); bytes += g * gb; });
            why = "ring all-reduce of " + gb_text(grad_dense * gb) + " of gradients (" + plain_number(gb) + " bytes each) once per step";
        } else if (p.zero < 3) {
            label = "ZeRO-" + n_text(p.zero) + " reduce-scatter + all-gather";
            const double updated = trains_adapters(job) ? 0 : 1;
            both([&](double g, double w, int64_t n, const Link& l) {
                const double gathered = (updated * w + (1 - updated) * g) * wb;  // adapters: only they change
                time += reduce_scatter_time(g * gb, n, l) + all_gather_time(gathered, n, l);
                bytes += g * gb + gathered;
            });
            why = "reduce-scatter " + gb_text(grad_dense * gb) + " of gradients + all-gather " + gb_text(weight_dense * wb) +
                  " of updated weights, once per step";
        } else {
            label = "FSDP / ZeRO-3 all-gather ×2 + reduce-scatter";
            both([&](double g, double w, int64_t n, const Link& l) {
                time += m * (2 * all_gather_time(w * wb, n, l) + reduce_scatter_time(g * gb, n, l));
                bytes += m * (2 * w * wb + g * gb);
            });
            why = "per micro-batch: all-gather " + gb_text(weight_dense * wb) + " of weights forward and again backward, " +
                  "reduce-scatter " + gb_text(grad_dense * gb) + " of gradients" + per_mb;
        }
        why += "; " + n_text(static_cast<double>(n_dense)) + " ranks over " + l_dense.name;
        add("dp", label, l_dense, n_dense, bytes, time, true, why);
    }

    // Hideable traffic (data-parallel, CP, and TP/EP when their overlap is on) runs under at most `overlap` of the compute time.
    double hideable = 0;
    for (const auto& c : st.comms)
        if (c.exposed_s < 0) hideable += c.time_s;
    const double window = r.assume.overlap * st.compute_s;
    const double exposed_share = hideable > 0 ? std::max(0.0, hideable - window) / hideable : 0;
    for (auto& c : st.comms)
        if (c.exposed_s < 0) c.exposed_s = c.time_s * exposed_share;

    st.step_s = st.compute_s + st.bubble_s;
    for (const auto& c : st.comms) st.step_s += c.exposed_s;
    st.tokens_per_s = st.tokens_per_step / st.step_s;
    st.tokens_per_s_per_gpu = st.tokens_per_s / gpus;
    // MFU and HFU against the dense BF16 peak, as torchtitan, Megatron and the Llama 3 paper report them
    // ("BF16 MFU"), whatever precision the linears run at.
    st.mfu = st.model_flops_per_token * st.tokens_per_s_per_gpu / (r.peak16_tflops * 1e12);
    st.hfu = st.hardware_flops_per_token * st.tokens_per_s_per_gpu / (r.peak16_tflops * 1e12);

    st.bound_key = "compute";
    double largest = st.compute_s;
    if (st.bubble_s > largest) {
        largest = st.bubble_s;
        st.bound_key = "bubble";
    }
    for (const auto& c : st.comms)
        if (c.exposed_s > largest) {
            largest = c.exposed_s;
            st.bound_key = c.key;
        }
    st.memory_bytes = train_memory(model, job, p);
    st.fits = st.memory_bytes <= gpu_bytes(r.gpu);
    return st;
}

}  // namespace vramcalc
