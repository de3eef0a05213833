// vLLM's CUDA graphs: which batch sizes each version captures and what the
// capture allocates on the device ("Graph capturing finished in … took X GiB",
// v1/worker/gpu_model_runner.py capture_model: free memory before − after).
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
// max_cudagraph_capture_size replaces the largest; gpt-oss raises it (the version's
// capture_max_gpt_oss: models/config.py GptOssForCausalLMConfig.verify_and_update_config).
// `full_count`: the sizes FULL decode graphs are captured for, the uniform decode batches of
// at most max_num_seqs requests (gpu_model_runner.py capture_model: uniform_decode sizes
// ≤ uniform_decode_query_len · max_num_reqs), and the largest of them.
void capture_sizes(const Plan& p, const VllmSetup& v, int64_t& count, int64_t& largest, int64_t& full_count,
                   int64_t& full_largest) {
    const Job& job = p.job;
    const int64_t twice = std::min<int64_t>(2 * v.seqs, 512);
    switch (job.capture_sizes) {
        case CaptureSizes::V0: largest = std::max<int64_t>(8, (v.seqs + 7) / 8 * 8); break;
        case CaptureSizes::V1Fixed: largest = 512; break;
        case CaptureSizes::V1Twice:
        case CaptureSizes::V1Twice16: largest = twice; break;
    }
    if (p.m.config.model_type == "gpt_oss" && job.capture_max_gpt_oss > 0) largest = job.capture_max_gpt_oss;
    if (job.max_cudagraph_capture_size > 0) largest = job.max_cudagraph_capture_size;
    if (job.capture_sizes != CaptureSizes::V0) largest = std::min(largest, v.tokens);
    count = full_count = full_largest = 0;
    auto take = [&](int64_t s) {
        ++count;
        if (s <= v.seqs) ++full_count, full_largest = s;
    };
    for (int64_t s : {1, 2, 4})
        if (s <= largest) take(s);
    for (int64_t s = 8; s <= largest; s += job.capture_sizes == CaptureSizes::V1Twice16 && s >= 256 ? 16 : 8) take(s);
    largest = std::max<int64_t>(1, largest);
}

// FlashAttention 3 (Hopper) runs the FULL decode graphs with the split-KV bound fixed at
// capture (v1/attention/backends/flash_attn.py FlashAttentionMetadataBuilder: "we need to set
// the upper bound of the number of splits so that large enough intermediate buffers are
// pre-allocated during capture", max_num_splits = flash_attn_max_num_splits_for_cuda_graph, the
// preset's fa_max_splits). FA3's mha_fwd (hopper/flash_api.cpp) then allocates, in the graph
// pool, out_accum [splits, heads, total_q, head_dim_v] and softmax_lse_accum [splits, heads,
// total_q], both fp32, for the largest FULL batch: 32 × 32 heads × 512 × 129 × 4 B = 258 MiB
// for Llama-3.1-8B (its v0.19 log's FULL first capture: 260 MiB). FA3's dynamic split handles
// at most 992 sequences (flash_api.cpp: "992 = 32 * 31 is the max supported batch in
// prepare_varlen_num_blocks"): gpt-oss's 1024 capture gets no accumulators (its log's FULL
// first capture: 8 MiB), the next size, 992, does. MLA (FLASH_ATTN_MLA) splits its latent
// output (head_dim_v = kv_lora_rank). Other backends allocate none: the log's selector picks
// TRITON_ATTN for fp32 ("dtype not supported") and for Gemma 3's bidirectional image prefix
// ("partial multimodal token full attention not supported"), whose FULL captures add 4–8 MiB.
double fa3_split_buffers(const Plan& p, const Layout& l, int64_t full_largest, std::string* why) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    if (job.fa_max_splits <= 0 || !job.gpu_is_hopper || full_largest <= 0 || job.attention == Attention::Eager) return 0;
    if (p.compute.bits != 16) return 0;                                        // FA: fp16 / bf16 only
    if (c.vision.has() && c.vision.kind == "siglip") return 0;                 // Gemma 3: TRITON_ATTN
    const double hd = static_cast<double>(c.head_dim > 0 ? c.head_dim : (c.heads > 0 ? c.hidden / c.heads : 0));
    if (!c.is_mla() && (hd > 256 || static_cast<int64_t>(hd) % 8 != 0)) return 0;  // supports_head_size
    int64_t batch = full_largest;
    if (batch > 992) batch = 992 / 8 * 8;  // the largest capture size FA3 splits
    const double heads = static_cast<double>(need_dim(c.heads, "num_attention_heads", "FlashAttention's split buffers")) /
                         static_cast<double>(l.tp);
    const double dv = c.is_mla() ? static_cast<double>(c.kv_lora_rank) : hd;
    const double bytes = static_cast<double>(job.fa_max_splits) * heads * static_cast<double>(batch) * (dv + 1) * 4;
    if (why)
        *why = "FlashAttention 3's split-KV buffers " + count_text(job.fa_max_splits) + " splits × " + printf_text("%.0f", heads) +
               " heads × " + count_text(batch) + " × (" + printf_text("%.0f", dv) + " + 1) × 4 B = " + gib_text(bytes);
    return bytes;
}

}  // namespace

// What the capture takes, in four parts, none fitted to the graph rows that check it
// (docs/serving.md "CUDA graphs"):
// - the graphs themselves: the driver keeps each captured graph's executable (kernel nodes and
//   their parameters), in proportion to the kernels it replays, i.e. to the layers captured:
//   graph_layer_kib per layer per captured size per mode (piecewise, full), from vLLM's own
//   profiler on Llama-3.1-8B (preset field, cited there);
// - the graph pool (platform global pool, compilation/cuda_graph.py CUDAGraphWrapper): captures
//   run largest first and share it, so it holds the peak of the largest capture: one layer's
//   temporaries at that batch (Inductor frees each buffer after its last use);
// - FlashAttention 3's split buffers of the FULL decode graphs (above);
// - the capture stream's cuBLAS workspace: graph_capture() runs on a stream of its own and
//   PyTorch keeps one workspace per (handle, stream) (aten/src/ATen/cuda/CublasHandlePool.cpp
//   parseChosenWorkspaceSize: 4096 KiB × 8 = 32 MiB on sm90, 2 × 4 MiB + 16 × 8 KiB elsewhere).
VllmGraphs vllm_graphs(const Plan& p, const Layout& l, const VllmSetup& v, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    VllmGraphs g;
    if (job.enforce_eager || job.cudagraph_mode == CudaGraphMode::None) {
        if (explain) g.why = "none (enforce_eager)";
        return g;
    }
    int64_t full_count = 0, full_largest = 0;
    capture_sizes(p, v, g.count, g.largest, full_count, full_largest);
    const int64_t sizes = g.count;
    const bool both = job.cudagraph_mode == CudaGraphMode::FullAndPiecewise;
    if (both) g.count += full_count;
    const double layers = static_cast<double>(std::max<int64_t>(1, c.layers)) / static_cast<double>(l.pp);
    const double driver = graph_exec_bytes(p, layers, static_cast<double>(g.count));
    const double pool = layer_working_set(p, static_cast<double>(g.largest), l.tp);
    std::string fa_why;
    const double fa = both ? fa3_split_buffers(p, l, full_largest, explain ? &fa_why : nullptr) : 0;
    const double workspace = cublas_workspace_bytes(job);
    g.bytes = driver + pool + fa + workspace;
    if (explain)
        g.why = "CUDA graphs: " + count_text(sizes) + " batch sizes up to " + count_text(g.largest) +
                (both ? " + " + count_text(full_count) + " FULL decode graphs" : "") + " = " + count_text(g.count) +
                " captures × " + printf_text("%.0f", layers) + " layers × " + printf_text("%.0f", job.graph_layer_kib) +
                " KiB = " + gib_text(driver) + " + the pool (one layer at " + count_text(g.largest) + " tokens) " + gib_text(pool) +
                (fa > 0 ? " + " + fa_why : "") + " + the capture stream's cuBLAS workspace " + mib_text(workspace) + " = " +
                gib_text(g.bytes) +
                (job.cudagraph_in_budget ? ", estimated and taken from the KV budget" : ", captured after the pool is sized, from the headroom");
    return g;
}

}  // namespace vramcalc
