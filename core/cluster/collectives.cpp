#include "cluster/collectives.hpp"

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

const Link& link_for(const Topology& t, int64_t stride, int64_t n) {
    const int64_t span = stride * n;
    if (span <= t.domain) return t.domain_link;
    if (span <= t.per_node) return t.node_link;
    return t.fabric_link;
}

}  // namespace vramcalc
