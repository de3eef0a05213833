// The collectives of a training step, each on the link it crosses (TP, PP, EP, CP, DP).
#include <algorithm>
#include <cmath>

#include "cluster/cluster.hpp"
#include "cluster/dims.hpp"
#include "cluster/text.hpp"
#include "cluster/train_parts.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

std::string n_text(double v) { return number_text(v); }

bool trains_adapters(const Job& job) { return job.mode == Mode::LoRA || job.mode == Mode::QLoRA; }

}  // namespace

void add_comm_terms(const Model& model, const Job& job, const ClusterRequest& r, const Parallel& p, const Dims& d, TrainStep& st) {
    const Topology topo = r.topology();
    const double tp = static_cast<double>(p.tp), pp = static_cast<double>(p.pp), cp = static_cast<double>(p.cp);
    const double m = static_cast<double>(p.microbatches), v = static_cast<double>(p.virtual_stages);
    const double b = static_cast<double>(job.batch), s = static_cast<double>(job.seq);
    const bool full = job.checkpointing == Checkpointing::Full;
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
            const double t_fabric = p2p_time(fabric_bytes, topo.fabric_link);
            // The NVLink forward inside a node exists only where the node holds more than one GPU of the group
            // (one GPU per node, an Apple machine or a PCIe box without a scale-up link: every copy crosses the
            // fabric, counted above).
            const bool forwards = nv.bytes_per_s > 0 && std::min(r.gpu.domain, r.gpu.per_node) > p.tp * p.cp;
            const double t_nv = forwards ? p2p_time(nv_bytes, nv) : 0;
            time = per_layer * std::max(t_fabric, t_nv);
            bytes = fabric_bytes + (forwards ? nv_bytes : 0);
            how = printf_text("%.2f", remote) + " remote nodes per token over " + topo.fabric_link.name + " (of " +
                  plain_number(nodes) + (r.node_limit > 0 ? ", at most " + n_text(static_cast<double>(r.node_limit)) : "") +
                  ")" + (forwards ? ", top-" + n_text(k) + " copies over NVLink" : "");
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

}

}  // namespace vramcalc
