#pragma once
// Time of one collective on one link, alpha-beta model with ring algorithms
// (Thakur, Rabenseifner & Gropp 2005, "Optimization of Collective
// Communication Operations in MPICH", §4; NCCL's "bus bandwidth" in
// nccl-tests doc/PERFORMANCE.md uses the same 2(n-1)/n and (n-1)/n factors).
// `bytes` is always the full logical buffer of one GPU (for reduce-scatter
// the unsharded input, for all-gather the gathered output).
#include <cstdint>
#include <string>

namespace vramcalc {

// The kind of hop a collective's steps take: NVLink (or another scale-up link), PCIe inside a node, or the
// network between nodes (NCCL's NVLINK / PCI / NET latency classes).
enum class LinkTier { NvLink, Pcie, Net };

struct Link {
    std::string name;       // "NVLink 4 (NVSwitch)", "InfiniBand NDR 400 Gb/s per GPU", ...
    double bytes_per_s = 0; // achievable per GPU per direction at large messages (line rate × efficiency)
    double latency_s = -1;  // a flat latency per ring step when set (≥ 0); < 0: NCCL's own by protocol (below)
    LinkTier tier = LinkTier::NvLink;  // the hop between the group's islands (Net when it spans nodes)
    LinkTier inside = LinkTier::NvLink;  // the hop inside an island (NVLink or PCIe)
    int64_t nodes = 1;      // islands the group spans (NCCL's nNodes)
    bool ll128 = true;      // NCCL's LL128 protocol runs here (NVLink-connected GPUs, sm_80 and later)
    double ll_cap = 0;      // NCCL's cap on the LL protocol's bus bandwidth, B/s (0: none)
};

// Collectives as NCCL times them (src/graph/tuning.cc, ncclTopoTuneModel): for each protocol (LL, LL128,
// Simple) a base latency, a latency per ring step by hop (NVLink / PCIe / network) and a share of the link's
// bandwidth; NCCL runs the protocol (and, for all-reduces across nodes, the ring or the tree) that is fastest
// at this size. Small messages thus pay tens of µs and reach a small share of the link; large ones approach
// the link's achievable rate. `bytes` is always the full logical buffer of one GPU (for reduce-scatter the
// unsharded input, for all-gather the gathered output). With a flat latency set, the plain alpha-beta ring.
// Ring all-reduce: a reduce-scatter then an all-gather, each GPU sending 2(n-1)/n of the buffer in 2(n-1) steps.
double all_reduce_time(double bytes, int64_t n, const Link& link);
// Reduce-scatter or all-gather alone: (n-1)/n of the buffer in n-1 steps.
double reduce_scatter_time(double bytes, int64_t n, const Link& link);
double all_gather_time(double bytes, int64_t n, const Link& link);
// All-to-all: each GPU keeps 1/n of its buffer and sends (n-1)/n to the others, to all peers at once.
double all_to_all_time(double bytes, int64_t n, const Link& link);
// One point-to-point send of the buffer.
double p2p_time(double bytes, const Link& link);
// The protocol / algorithm NCCL runs for this collective ("LL ring", "LL128 ring", "Simple ring", "Simple tree").
std::string nccl_choice(double bytes, int64_t n, const Link& link, bool all_reduce);

// NVLink SHARP all-reduce (NCCL's NVLS algorithm on third-generation NVSwitch): the switch reduces, so each
// GPU sends its buffer once and receives the result once, at the NVLS bus bandwidth nccl-tests measures (476 GB/s
// on 8 H100 against 450 GB/s of line rate each way: nccl-tests#290), after NCCL's NVLS latency (25 µs).
double nvls_all_reduce_time(double bytes, const Link& link);

// How an engine all-reduces: NCCL (ring, or NVLS where the switch has it), or an in-node custom
// all-reduce for small messages (one-shot: each GPU reads every peer's buffer; two-shot: reduce-scatter
// then all-gather through peer memory), as vLLM (custom_all_reduce.cuh) and SGLang / TensorRT-LLM
// (trt_reduce) call them.
enum class AllReduceImpl { Nccl, VllmCustom, TrtCustom };
struct AllReduceChoice {
    double time_s = 0;
    const char* algorithm = "";  // "ring", "NVLS", "one-shot", "two-shot"
};
// The time an engine's all-reduce of `bytes` over n GPUs on `link` takes, choosing as the engine does by
// message size; `nvls` when the domain's switch reduces.
AllReduceChoice engine_all_reduce(AllReduceImpl impl, double bytes, int64_t n, const Link& link, bool nvls);

// The three tiers a group of GPUs can cross. Ranks are laid out with the
// innermost parallel dimension on neighbouring GPUs, so a group of n ranks
// `stride` apart spans stride × n consecutive GPUs: inside the scale-up
// domain it runs at the scale-up link, inside the node over PCIe, beyond that
// over the fabric (one NIC per GPU).
struct Topology {
    Link domain_link;
    int64_t domain = 1;
    Link node_link;
    int64_t per_node = 1;
    Link fabric_link;
};
// The link a point-to-point exchange between neighbours of the group crosses (pipeline sends, the
// ring-attention hops of context parallelism): a hop is as fast as the slowest link it crosses, and a
// hop between islands leaves through one GPU's NIC.
const Link& link_for(const Topology& t, int64_t stride, int64_t n);
// The link an NCCL collective (all-reduce, reduce-scatter, all-gather) of the group runs at. Inside an
// island (the scale-up domain, or the node when that is larger) as link_for. Across islands NCCL builds
// one ring per NIC (its "channels"): every ring runs through the group's GPUs of an island on the
// island's link and crosses to the next island through a different NIC, so the k GPUs of the group in
// one island cross on their k NICs at once: bus bandwidth min(island link, k × NIC) (NCCL's ring
// algorithm and nccl-tests doc/PERFORMANCE.md bus bandwidth; with k = 1, the stride ≥ island case, it
// is one NIC, as link_for).
Link collective_link_for(const Topology& t, int64_t stride, int64_t n);

}  // namespace vramcalc
