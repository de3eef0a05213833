// The layout recommender (training) and the serving roofline.
#include <algorithm>
#include <cmath>

#include "cluster/cluster.hpp"
#include "cluster/dims.hpp"
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

}  // namespace

Topology ClusterRequest::topology() const {
    // A flat latency per ring step when the request sets one; else NCCL's by protocol and hop (collectives.cpp).
    const double latency = assume.latency_us >= 0 ? assume.latency_us * 1e-6 : -1, eff = assume.link_efficiency;
    const bool nvlink = std::string(gpu.vendor) == "NVIDIA" && gpu.domain > 1 && std::string(gpu.link).rfind("NVLink", 0) == 0;
    // NCCL's cap on LL's bus bandwidth inside a node, by architecture (llMaxBws: Ampere 87.7, Hopper 141,
    // Blackwell 282 GB/s; older 39).
    const Achieved a = achieved(gpu);
    const std::string id = gpu.id;
    const double ll_cap = (id == "b200" || id == "b300" || id == "gb200") ? 282e9 : a.hopper ? 141e9 : a.mamf_bf16 > 0 && !a.hopper && std::string(gpu.vendor) == "NVIDIA" ? 87.7e9 : 39e9;
    Topology t;
    t.domain_link = {gpu.link, gpu.link_gbps * 1e9 * eff, latency, gpu.domain > 1 ? LinkTier::NvLink : LinkTier::Pcie,
                     LinkTier::NvLink, 1, nvlink, ll_cap};
    t.domain = gpu.domain;
    t.node_link = {"PCIe (" + std::to_string(static_cast<int>(gpu.pcie_gbps)) + " GB/s)", gpu.pcie_gbps * 1e9 * eff, latency,
                   LinkTier::Pcie, LinkTier::Pcie, 1, false, ll_cap};
    t.per_node = gpu.per_node;
    t.fabric_link = {fabric.name, fabric.gbit_per_gpu / 8 * 1e9 * eff * fabric.efficiency, latency, LinkTier::Net,
                     gpu.domain >= gpu.per_node && gpu.domain > 1 ? LinkTier::NvLink : LinkTier::Pcie, 2, nvlink, ll_cap};
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

}  // namespace vramcalc
