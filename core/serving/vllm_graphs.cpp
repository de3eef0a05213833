// vLLM's CUDA graphs: which batch sizes each version captures and what the
// captured graphs hold on the device.
#include <algorithm>

#include "serving/vllm_parts.hpp"
#include "serving/working_set.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// The capture sizes (the preset's capture_sizes rule):
// - V0 (worker/model_runner.py): [1, 2, 4] + 8·i up to max_num_seqs rounded up to 8.
// - V1 0.7 – 0.9.1 (config.py _set_cudagraph_sizes): [1, 2, 4] + range(8, 513, 8), 67 sizes.
// - V1 0.10 – 0.16: [1, 2, 4] + range(8, min(2·max_num_seqs, 512) + 1, 8), sizes over
//   max_num_batched_tokens dropped.
// - V1 0.17+: the same to 256, then in steps of 16 (v0.19 logs: 51 sizes to 512).
// max_cudagraph_capture_size replaces the largest.
void capture_sizes(const Job& job, const VllmSetup& v, int64_t& count, int64_t& largest) {
    const int64_t twice = std::min<int64_t>(2 * v.seqs, 512);
    switch (job.capture_sizes) {
        case CaptureSizes::V0: largest = std::max<int64_t>(8, (v.seqs + 7) / 8 * 8); break;
        case CaptureSizes::V1Fixed: largest = 512; break;
        case CaptureSizes::V1Twice:
        case CaptureSizes::V1Twice16: largest = twice; break;
    }
    if (job.max_cudagraph_capture_size > 0) largest = job.max_cudagraph_capture_size;
    if (job.capture_sizes != CaptureSizes::V0) largest = std::min(largest, v.tokens);
    count = 0;
    for (int64_t s : {1, 2, 4}) count += s <= largest;
    for (int64_t s = 8; s <= largest; s += job.capture_sizes == CaptureSizes::V1Twice16 && s >= 256 ? 16 : 8) ++count;
    largest = std::max<int64_t>(1, largest);
}

}  // namespace

// What the graphs hold: each captured graph costs the driver a fixed amount (the preset's
// graph_mib), and the graph pool keeps, for the largest batch, the tensors each piece hands to
// the next around attention: two hidden-size tensors and q, k, v and the attention output
// (÷ TP) per layer this GPU holds (V1's piecewise graphs, vllm/compilation/cuda_graph.py); V0's
// whole-model graphs keep one layer's temporaries at the largest batch. vLLM's code states none
// of this: it is vramcalc's reading, fitted to one model's published captures (the Llama-3.1-8B
// TP 1/2/4 and PP 2/4 runs of the llm-d v0.19 sweep: 0.35 GiB for 102 graphs plus 18 MiB per
// layer at TP 1) and checked on the sweep's other models (docs/validation.md).
VllmGraphs vllm_graphs(const Plan& p, const Layout& l, const VllmSetup& v, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    VllmGraphs g;
    if (job.enforce_eager || job.cudagraph_mode == CudaGraphMode::None) {
        if (explain) g.why = "none (enforce_eager)";
        return g;
    }
    capture_sizes(job, v, g.count, g.largest);
    const int64_t sizes = g.count;
    if (job.cudagraph_mode == CudaGraphMode::FullAndPiecewise) g.count *= 2;
    const double B = static_cast<double>(g.largest), dtype = p.compute.bits / 8, tp = static_cast<double>(l.tp);
    const double layers = static_cast<double>(std::max<int64_t>(1, c.layers)) / static_cast<double>(l.pp);
    double pool = 0;
    if (job.cudagraph_mode == CudaGraphMode::Full) {
        pool = layer_working_set(p, B, l.tp);
    } else {
        const double h = static_cast<double>(c.hidden);
        const double hd = static_cast<double>(c.head_dim > 0 ? c.head_dim : (c.heads > 0 ? c.hidden / c.heads : 0));
        const double q = static_cast<double>(c.heads) * hd, kv = static_cast<double>(c.kv_heads > 0 ? c.kv_heads : c.heads) * hd;
        pool = layers * B * (2 * h + (2 * q + 2 * kv) / tp) * dtype;
    }
    g.bytes = static_cast<double>(g.count) * job.graph_mib * kMiB + pool;
    if (explain)
        g.why = "CUDA graphs: " + count_text(sizes) + " batch sizes up to " + count_text(g.largest) +
                (job.cudagraph_mode == CudaGraphMode::FullAndPiecewise ? " × 2 (FULL_AND_PIECEWISE)" : "") + " = " +
                count_text(g.count) + " graphs × " + printf_text("%.1f", job.graph_mib) + " MiB + their pool " + gib_text(pool) +
                " = " + gib_text(g.bytes) + (job.cudagraph_in_budget ? ", estimated and taken from the KV budget"
                                                                      : ", captured after the pool is sized, from the headroom");
    return g;
}

}  // namespace vramcalc
