#include "cluster/collectives.hpp"

#include <algorithm>
#include <cmath>

namespace vramcalc {
namespace {

// NCCL's tuning constants (NVIDIA/nccl src/graph/tuning.cc at 5067397c, ncclTunerConstantsDefaults), in µs:
// base latency of a ring per protocol (LL, LL128, Simple), of a tree, and the latency of one step by hop.
enum Proto { LL = 0, LL128 = 1, Simple = 2 };
constexpr double kRingBase[3] = {6.6, 14.0, 8.4};
constexpr double kTreeBase[3] = {6.8, 14.0, 8.4};
constexpr double kRingHop[3][3] = {{0.6, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 14.0}};  // NVLink, PCIe, network
constexpr double kTreeHop[3][3] = {{0.6, 1.25, 4.0}, {1.0, 1.9, 4.0}, {5.0, 8.5, 14.0}};
// "Inter-node rings still have to launch nsteps * net overhead": 1 µs a step on Intel hosts, 3 × for Simple.
constexpr double kNetOverhead = 1.0;
// NCCL's NVLS latency (hwLatencies NVLINK NVLS Simple) and the bus bandwidth nccl-tests measures with NVLS on
// 8 × H100: 476 GB/s against NVLink 4's 450 GB/s each way (NVIDIA/nccl-tests#290).
constexpr double kNvlsLatency = 25.0, kNvlsOverLine = 476.0 / 450.0;

int hop(LinkTier t) { return t == LinkTier::NvLink ? 0 : t == LinkTier::Pcie ? 1 : 2; }

// The link's share of its bandwidth under a protocol (NCCL: LL carries 8 bytes of payload in 16 and is
// capped; LL128 120 bytes in 128; Simple the whole line).
double proto_bw(const Link& l, int p, bool tree) {
    if (p == LL) return std::min(l.ll_cap > 0 ? l.ll_cap : l.bytes_per_s, l.bytes_per_s * (tree ? 1 / 3.8 : 0.5));
    if (p == LL128) return l.bytes_per_s * (tree && l.nodes == 1 ? 7.0 / 9.0 : 0.92);
    return l.bytes_per_s * (tree ? 0.92 : 1.0);
}

struct Timed {
    double s = 0;
    int proto = Simple;
    bool tree = false;
};

// The fastest of NCCL's choices for a ring collective of `steps` steps moving `fraction` of the buffer.
Timed nccl_time(double fraction, double bytes, int64_t steps, int64_t n, const Link& l, bool all_reduce) {
    Timed best{-1};
    if (l.latency_s >= 0) return {fraction * bytes / l.bytes_per_s + static_cast<double>(steps) * l.latency_s, Simple, false};
    const int64_t nodes = std::max<int64_t>(1, std::min(l.nodes, n));
    if (nodes > 1) {  // across nodes NCCL caps LL by the host (Intel CPUs: 39 GB/s on 2 nodes, 20.4 beyond)
        Link capped = l;
        capped.nodes = nodes;
        capped.ll_cap = nodes <= 2 ? 39e9 : 20.4e9;
        if (l.nodes != nodes || l.ll_cap != capped.ll_cap) return nccl_time(fraction, bytes, steps, n, capped, all_reduce);
    }
    const int64_t inter = nodes <= 1 ? 0 : all_reduce ? 2 * (nodes - 1) : nodes - 1;
    for (int p = 0; p < 3; ++p) {
        if (p == LL128 && !l.ll128) continue;
        double intra = kRingHop[hop(nodes > 1 ? l.inside : l.tier)][p];
        if (nodes > 1) intra = std::max(intra, kNetOverhead * (p == Simple ? 3 : 1));
        const double lat = kRingBase[p] + static_cast<double>(steps - inter) * intra + static_cast<double>(inter) * kRingHop[2][p];
        const double t = lat * 1e-6 + fraction * bytes / proto_bw(l, p, false);
        if (best.s < 0 || t < best.s) best = {t, p, false};
    }
    if (all_reduce && nodes > 1) {  // NCCL's tree: up and down the node tree, log2(nodes) network hops each way
        const double ppn = static_cast<double>(n) / static_cast<double>(nodes);
        for (int p = 0; p < 3; ++p) {
            if (p == LL128 && !l.ll128) continue;
            const double lat = kTreeBase[p] + 2 * ((ppn - 1) * kTreeHop[hop(l.inside)][p] + std::log2(static_cast<double>(nodes)) * kTreeHop[2][p]);
            const double t = lat * 1e-6 + 2 * bytes / proto_bw(l, p, true);
            if (t < best.s) best = {t, p, true};
        }
    }
    return best;
}

}  // namespace

double all_reduce_time(double bytes, int64_t n, const Link& link) {
    if (n <= 1 || bytes <= 0) return 0;
    const double nd = static_cast<double>(n);
    return nccl_time(2 * (nd - 1) / nd, bytes, 2 * (n - 1), n, link, true).s;
}

double reduce_scatter_time(double bytes, int64_t n, const Link& link) {
    if (n <= 1 || bytes <= 0) return 0;
    const double nd = static_cast<double>(n);
    return nccl_time((nd - 1) / nd, bytes, n - 1, n, link, false).s;
}

double all_gather_time(double bytes, int64_t n, const Link& link) { return reduce_scatter_time(bytes, n, link); }

std::string nccl_choice(double bytes, int64_t n, const Link& link, bool all_reduce) {
    if (link.latency_s >= 0) return "ring, flat latency";
    const double nd = static_cast<double>(n);
    const Timed t = all_reduce ? nccl_time(2 * (nd - 1) / nd, bytes, 2 * (n - 1), n, link, true)
                               : nccl_time((nd - 1) / nd, bytes, n - 1, n, link, false);
    static const char* const kNames[3] = {"LL", "LL128", "Simple"};
    return std::string(kNames[t.proto]) + (t.tree ? " tree" : " ring");
}

// All-to-all and point-to-point sends go to every peer at once (NCCL's send/recv, Simple): one step's
// latency, then the bytes at the link's rate.
double all_to_all_time(double bytes, int64_t n, const Link& link) {
    if (n <= 1 || bytes <= 0) return 0;
    const double nd = static_cast<double>(n);
    const double lat = link.latency_s >= 0 ? (nd - 1) * link.latency_s : (kRingBase[Simple] + kRingHop[hop(link.tier)][Simple]) * 1e-6;
    return (nd - 1) / nd * bytes / link.bytes_per_s + lat;
}

double p2p_time(double bytes, const Link& link) {
    if (bytes <= 0) return 0;
    const double lat = link.latency_s >= 0 ? link.latency_s : (kRingBase[Simple] + kRingHop[hop(link.tier)][Simple]) * 1e-6;
    return bytes / link.bytes_per_s + lat;
}

double nvls_all_reduce_time(double bytes, const Link& link) {
    if (bytes <= 0) return 0;
    const double lat = link.latency_s >= 0 ? 2 * link.latency_s : kNvlsLatency * 1e-6;
    return bytes / (link.bytes_per_s * kNvlsOverLine) + lat;
}

namespace {

// Measured custom all-reduce latency on 8 × H100 SXM without CUDA graphs (sgl-project/sglang#2904,
// "unit test performance in H100", tables for vLLM's custom all-reduce and for SGLang's TensorRT-LLM
// kernels), in µs, at TP 2 / 4 / 8, for 512 B … 1 MiB. Between the sizes: linear in the size; past 1 MiB
// the last row's slope.
constexpr double kArSize[6] = {512, 4096, 32768, 262144, 524288, 1048576};
constexpr double kVllmAr[3][6] = {{9.5, 8.8, 8.7, 12.9, 17.7, 26.6}, {9.1, 8.5, 9.2, 20.6, 26.9, 40.2},
                                  {10.1, 9.3, 11.8, 24.1, 30.4, 45.0}};
constexpr double kTrtAr[3][6] = {{3.7, 3.9, 4.5, 7.9, 12.5, 19.9}, {4.8, 3.7, 4.8, 13.9, 20.2, 31.1},
                                 {5.9, 5.7, 7.8, 16.7, 22.1, 33.8}};

double table_us(const double (&t)[3][6], double bytes, int64_t n) {
    const int row = n <= 2 ? 0 : n <= 4 ? 1 : 2;
    const double* v = t[row];
    if (bytes <= kArSize[0]) return v[0];
    for (int i = 1; i < 6; ++i)
        if (bytes <= kArSize[i]) return v[i - 1] + (v[i] - v[i - 1]) * (bytes - kArSize[i - 1]) / (kArSize[i] - kArSize[i - 1]);
    return v[5] + (v[5] - v[4]) * (bytes - kArSize[5]) / (kArSize[5] - kArSize[4]);
}

}  // namespace

AllReduceChoice engine_all_reduce(AllReduceImpl impl, double bytes, int64_t n, const Link& link, bool nvls) {
    if (n <= 1 || bytes <= 0) return {0, "none"};
    // vLLM's custom all-reduce serves messages up to its 8 MiB buffer inside an NVLink domain of 2-8 GPUs
    // (custom_all_reduce.py: max_size 8192 * 1024, world sizes 2, 4, 6, 8, full NVLink); one-shot
    // below 512 KiB at 4 GPUs or fewer and below 256 KiB at 8, two-shot above (custom_all_reduce.cuh
    // allreduce dispatch). SGLang's TensorRT-LLM kernels likewise (one-shot / two-shot by size).
    if (impl != AllReduceImpl::Nccl && n <= 8 && bytes <= 8.0 * 1024 * 1024) {
        const double us = table_us(impl == AllReduceImpl::TrtCustom ? kTrtAr : kVllmAr, bytes, n);
        const bool one = n <= 2 || (n <= 4 ? bytes < 512 * 1024 : bytes < 256 * 1024);
        return {us * 1e-6, one ? "one-shot" : "two-shot"};
    }
    const double ring = all_reduce_time(bytes, n, link);
    if (nvls && nvls_all_reduce_time(bytes, link) < ring) return {nvls_all_reduce_time(bytes, link), "NVLS"};
    return {ring, "ring"};
}

const Link& link_for(const Topology& t, int64_t stride, int64_t n) {
    const int64_t span = stride * n;
    if (span <= t.domain) return t.domain_link;
    if (span <= t.per_node) return t.node_link;
    return t.fabric_link;
}

Link collective_link_for(const Topology& t, int64_t stride, int64_t n) {
    const Link& hop = link_for(t, stride, n);
    if (&hop != &t.fabric_link) return hop;
    const bool domain_island = t.domain >= t.per_node;
    const int64_t island = domain_island ? t.domain : t.per_node;
    const Link& inside = domain_island ? t.domain_link : t.node_link;
    const int64_t k = std::max<int64_t>(1, std::min(n, island / std::max<int64_t>(1, stride)));
    Link l = hop;
    l.nodes = std::max<int64_t>(1, n / k);
    l.inside = inside.tier;
    if (k == 1 || island <= 1) return l;
    l.bytes_per_s = std::min(inside.bytes_per_s, static_cast<double>(k) * hop.bytes_per_s);
    l.name = hop.name + " × " + std::to_string(k) + " NICs per " + (domain_island ? "NVLink domain" : "node") +
             " (rings over " + inside.name + " inside)";
    return l;
}

}  // namespace vramcalc
