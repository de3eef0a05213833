#include "cluster/collectives.hpp"

#include <algorithm>

namespace vramcalc {
namespace {

double steps_time(double fraction_sent, double bytes, int64_t steps, const Link& link) {
    return fraction_sent * bytes / link.bytes_per_s + static_cast<double>(steps) * link.latency_s;
}

}  // namespace

double all_reduce_time(double bytes, int64_t n, const Link& link) {
    if (n <= 1 || bytes <= 0) return 0;
    const double nd = static_cast<double>(n);
    return steps_time(2 * (nd - 1) / nd, bytes, 2 * (n - 1), link);
}

double reduce_scatter_time(double bytes, int64_t n, const Link& link) {
    if (n <= 1 || bytes <= 0) return 0;
    const double nd = static_cast<double>(n);
    return steps_time((nd - 1) / nd, bytes, n - 1, link);
}

double all_gather_time(double bytes, int64_t n, const Link& link) { return reduce_scatter_time(bytes, n, link); }

double all_to_all_time(double bytes, int64_t n, const Link& link) {
    if (n <= 1 || bytes <= 0) return 0;
    const double nd = static_cast<double>(n);
    return steps_time((nd - 1) / nd, bytes, n - 1, link);
}

double p2p_time(double bytes, const Link& link) {
    if (bytes <= 0) return 0;
    return steps_time(1, bytes, 1, link);
}

double nvls_all_reduce_time(double bytes, const Link& link) {
    if (bytes <= 0) return 0;
    return bytes / link.bytes_per_s + 2 * link.latency_s;
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
    if (nvls) return {nvls_all_reduce_time(bytes, link), "NVLS"};
    return {all_reduce_time(bytes, n, link), "ring"};
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
    if (k == 1 || island <= 1) return hop;
    Link l = hop;
    l.bytes_per_s = std::min(inside.bytes_per_s, static_cast<double>(k) * hop.bytes_per_s);
    l.name = hop.name + " × " + std::to_string(k) + " NICs per " + (domain_island ? "NVLink domain" : "node") +
             " (rings over " + inside.name + " inside)";
    return l;
}

}  // namespace vramcalc
