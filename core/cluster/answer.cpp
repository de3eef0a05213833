// The cluster planner's answer: numbers and every text the page shows.
#include <algorithm>
#include <cmath>
#include <cmath>

#include "cluster/answer_parts.hpp"
#include "cluster/calibration.hpp"
#include "cluster/decode_floors.hpp"
#include "cluster/cluster.hpp"
#include "cluster/text.hpp"
#include "text/errors.hpp"
#include "text/json_writer.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

std::string n_text(int64_t v) { return number_text(static_cast<double>(v)); }

}  // namespace

std::string layout_text(const Parallel& p) {
    std::string t = "TP " + n_text(p.tp) + " × PP " + n_text(p.pp);
    if (p.cp > 1) t += " × CP " + n_text(p.cp);
    t += " × DP " + n_text(p.dp);
    if (p.ep > 1) t += ", EP " + n_text(p.ep);
    t += p.zero == 3 ? ", ZeRO-3/FSDP" : p.zero > 0 ? ", ZeRO-" + n_text(p.zero) : ", no ZeRO";
    if (p.virtual_stages > 1) t += ", " + n_text(p.virtual_stages) + " virtual stages";
    return t + ", " + n_text(p.microbatches) + (p.microbatches == 1 ? " micro-batch" : " micro-batches");
}

// Checks a layout the request gave against the model and the GPU count, and
// derives dp and the micro-batch count.
Parallel checked_layout(const Model& model, const Job& job, const ClusterRequest& r) {
    Parallel p = r.layout;
    const ModelConfig& c = model.config;
    const int64_t split = p.tp * p.pp * p.cp;
    if (r.gpus % split != 0)
        throw InputError("cluster.layout", "tp × pp × cp = " + n_text(split) + " must divide cluster.gpus (" +
                                               n_text(r.gpus) + ")");
    p.dp = r.gpus / split;
    if (c.heads > 0 && c.heads % p.tp != 0)
        throw InputError("cluster.layout.tp", "must divide num_attention_heads (" + n_text(c.heads) + "), got " + n_text(p.tp));
    if (c.layers > 0 && p.pp * p.virtual_stages > c.layers)
        throw InputError("cluster.layout.pp", "pp × virtual_stages cannot exceed the layers (" + n_text(c.layers) + ")");
    if (job.seq % p.cp != 0)
        throw InputError("cluster.layout.cp", "must divide job.seq (" + n_text(job.seq) + "), got " + n_text(p.cp));
    if (p.ep > 1 && !c.is_moe()) throw InputError("cluster.layout.ep", "expert parallelism needs a mixture-of-experts model");
    if (p.ep > 1 && ((p.dp * p.cp) % p.ep != 0 || c.experts % p.ep != 0))
        throw InputError("cluster.layout.ep", "must divide dp × cp (" + n_text(p.dp * p.cp) + ") and the experts (" +
                                                  n_text(c.experts) + "), got " + n_text(p.ep));
    if (p.microbatches == 0) {
        const int64_t global = r.global_batch > 0 ? r.global_batch : r.gpus * job.batch;
        p.microbatches = std::max<int64_t>(1, (global + p.dp * job.batch - 1) / (p.dp * job.batch));
    }
    return p;
}

Ranged rate_range(double v, const RateRange& r) { return r.rows > 0 ? Ranged{v, v * (1 + r.lo), v * (1 + r.hi)} : Ranged{v, v, v}; }
Ranged time_range(double t, const RateRange& r) { return r.rows > 0 ? Ranged{t, t / (1 + r.hi), t / (1 + r.lo)} : Ranged{t, t, t}; }

void write_range(JsonWriter& w, const char* key, const Ranged& r) { w.key(key).begin_array().value(r.lo).value(r.hi).end_array(); }

std::string range_note(const RateRange& r, const char* workload) {
    if (r.rows == 0) return "";
    return "Ranges: the measured run fell within them for " + n_text(r.covered) + " of " + n_text(r.rows) + " " + workload +
           " rows under leave-one-source-out cross-validation.";
}

namespace {

const char* dtype_label(const std::string& d) {
    if (d == "fp32") return "FP32";
    if (d == "tf32") return "TF32";
    if (d == "fp8") return "FP8";
    if (d == "fp4") return "FP4";
    if (d == "fp16") return "FP16";
    return "BF16";
}

void write_hardware(JsonWriter& w, const ClusterRequest& r) {
    const Gpu& g = r.gpu;
    const int64_t nodes = (r.gpus + g.per_node - 1) / g.per_node;
    w.key("hardware").begin_object();
    w.key("gpu").begin_object().field("id", g.id).field("name", g.name).field("vendor", g.vendor);
    w.field("marketed_gb", g.marketed_gb).field("usable_bytes", gpu_bytes(g)).field("usable_text", capacity_text(gpu_bytes(g)));
    w.key("tflops").begin_object().field("fp32", g.tflops_fp32).field("tf32", g.tflops_tf32).field("bf16", g.tflops_bf16);
    w.field("fp8", g.tflops_fp8).field("fp4", g.tflops_fp4).end_object();
    w.field("matmul_dtype", r.matmul_dtype).field("peak_tflops", r.peak_tflops);
    w.field("peak_text", tflops_text(r.peak_tflops) + " " + dtype_label(r.matmul_dtype) + " dense");
    w.field("memory_tbps", g.memory_tbps).field("memory_bw_text", number_text(g.memory_tbps) + " TB/s");
    w.field("link", g.link).field("link_gbps", g.link_gbps).field("domain", static_cast<int64_t>(g.domain));
    w.field("power_w", r.assume.power_w > 0 ? r.assume.power_w : g.power_w);
    w.field("link_text", g.domain > 1 ? std::string(g.link) + ", " + number_text(std::round(g.link_gbps)) +
                                            " GB/s per GPU each way, " + n_text(g.domain) + " GPUs per domain"
                                      : std::string(g.link));
    w.field("per_node", static_cast<int64_t>(g.per_node)).field("source", g.source).end_object();
    const Fabric& f = r.fabric;
    w.key("fabric").begin_object().field("id", f.id).field("name", f.name).field("gbit_per_gpu", f.gbit_per_gpu);
    w.field("text", std::string(f.name) + (f.efficiency < 1 ? " (taken at " + percent_text(f.efficiency) + " of the link efficiency)" : ""));
    w.field("source", f.source).end_object();
    w.field("gpus", r.gpus).field("nodes", nodes);
    w.field("nodes_text", n_text(r.gpus) + " × " + g.name + " in " + n_text(nodes) + (nodes == 1 ? " node" : " nodes") +
                              " of " + n_text(g.per_node));
    w.end_object();
}

void write_assumptions(JsonWriter& w, const ClusterRequest& r) {
    const Assumptions& a = r.assume;
    w.key("assumptions").begin_array();
    auto row = [&](const char* key, double value, const std::string& text) {
        w.begin_object().field("key", key).field("value", value).field("text", text).end_object();
    };
    row("compute_efficiency", a.compute_efficiency,
        a.compute_efficiency > 0 ? "math runs at " + percent_text(a.compute_efficiency) + " of the dense peak (override)"
                                 : "each op at its sustained rate: GEMMs up to " + tflops_text(r.rates.gemm16 / 1e12) +
                                       " BF16 by shape (" + r.rates.gemm_source + "), attention: " + r.rates.attn_source);
    const double power = a.power_w > 0 ? a.power_w : r.gpu.power_w;
    row("power_w", power, power > 0 ? "board power limit " + number_text(power) + " W: tensor rates × " +
                                          printf_text("%.3f", r.rates.power_factor) + " of the sustained figure measured at " +
                                          number_text(r.rates.sustained.power_w) + " W (cube-root law)"
                                    : "no board power listed for this GPU");
    row("memory_efficiency", a.memory_efficiency, "decode reads memory at " + percent_text(a.memory_efficiency) + " of peak bandwidth");
    row("link_efficiency", a.link_efficiency, "collectives reach " + percent_text(a.link_efficiency) + " of link line rate at large messages");
    row("overlap", a.overlap, "data-parallel and context-parallel traffic hides under " + percent_text(a.overlap) + " of compute");
    row("interference", a.interference, "compute runs " + percent_text(a.interference) + " slower while communication overlaps it");
    row("latency_us", a.latency_us, a.latency_us >= 0 ? number_text(a.latency_us) + " µs per ring step (override)"
                                                      : "collectives by size: NCCL's latency per step and protocol (LL, LL128, Simple; ring or tree)");
    row("gap_fraction", a.gap_fraction, percent_text(a.gap_fraction) + " of kernel time lost to gaps between kernels (fitted, " +
                                            gap_family_name(gap_family(r.framework, r.fused)) + ")");
    row("overlap_tp", a.overlap_tp ? 1 : 0, a.overlap_tp ? "TP collectives overlap compute" : "TP collectives are on the critical path");
    row("overlap_ep", a.overlap_ep ? 1 : 0, a.overlap_ep ? "EP all-to-alls overlap compute" : "EP all-to-alls are on the critical path");
    row("grad_reduce_bytes", a.grad_reduce_bytes, "gradients reduced with " + number_text(a.grad_reduce_bytes) + " bytes per value");
    w.end_array();
}

}  // namespace

std::string cluster_answer(const Model& model, const Job& job, const ClusterRequest& r) {
    JsonWriter w;
    w.begin_object().field("ok", true);
    write_hardware(w, r);
    write_assumptions(w, r);
    const bool training = job.mode != Mode::Inference;
    w.field("workload", training ? "train" : "serve");
    std::vector<std::string> notes;
    if (training) {
        write_training(w, model, job, r, notes);
    } else {
        if (!r.auto_layout) checked_layout(model, job, r);  // the same checks as for training
        const ServeResult s = serve(model, job, r);
        RateRange rr = serving_range();
        if (s.local_speed) rr = RateRange{s.local_decode_lo, s.local_decode_hi, 0, 1};  // the local model's own range
        const Ranged seq = rate_range(s.tokens_per_s_per_seq, rr), rep = rate_range(s.tokens_per_s_replica, rr);
        const Ranged all = rate_range(s.tokens_per_s_cluster, rr), tok = time_range(s.token_s, rr), ttft = time_range(s.ttft_s, rr);
        const auto split = [](int64_t tp, int64_t pp) { return "TP " + n_text(tp) + " × PP " + n_text(pp); };
        w.key("serve").begin_object();
        w.key("layout").begin_object().field("tp", s.tp).field("pp", s.pp).field("replicas", s.replicas);
        w.field("text", split(s.tp, s.pp) + (s.replicas > 1 ? ", " + n_text(s.replicas) + " replicas" : ", one replica")).end_object();
        w.field("layout_why", s.alt_tp > 0 ? "Timed as the estimate lays the job out; " + split(s.alt_tp, s.alt_pp) +
                                                 " also holds it, and its replicas over the rest would each serve this load."
                              : s.verdict_tp > 0 ? "As the estimate lays the job out (" + split(s.verdict_tp, s.verdict_pp) +
                                                       ") it does not hold this load; timed the smallest split that does."
                                                 : "");
        w.field("memory_bytes", s.memory_bytes).field("memory_text", gb_text(s.memory_bytes) + " per GPU").field("fits", s.fits);
        w.field("concurrency", r.concurrency).field("prompt_tokens", r.prompt_tokens).field("output_tokens", r.output_tokens);
        w.field("weights_read_bytes", s.weights_read_bytes).field("kv_read_bytes", s.kv_read_bytes);
        w.field("kv_prompt_bytes", s.kv_prompt_bytes).field("kv_end_bytes", s.kv_end_bytes);
        w.field("kv_text", "the running sequences hold " + gb_text(s.kv_prompt_bytes) + " of KV at the prompt, " +
                               gb_text(s.kv_end_bytes) + " at the end of the output, per GPU");
        w.field("allreduce", s.allreduce);
        w.field("read_text", gb_text(s.weights_read_bytes) + " of weights + " + gb_text(s.kv_read_bytes) + " of KV cache per GPU per step");
        w.field("token_s", s.token_s);
        write_range(w, "token_range_s", tok);
        w.field("token_text", duration_range_text(tok.v, tok.lo, tok.hi) + " per decode step");
        w.field("kernel_s", s.decode_kernel_s).field("moe_floor_s", s.decode_moe_floor_s).field("launch_s", s.decode_launch_s);
        w.field("host_s", s.decode_host_s).field("cuda_graphs", s.cuda_graphs);
        // The family whose host time per step is the fitted parameter (empty: measured or none).
        w.field("host_family", r.step_cpu_ms >= 0 ? "" : step_host_family_name(step_host_family(job)));
        w.field("kernels", s.decode_kernels).field("kernel_each_s", s.decode_kernel_each_s);
        w.field("kernel_text", duration_text(s.decode_kernel_s) +
                                   (serve_preset(job.engine).kernel_inventory
                                        ? " for " + number_text(std::round(s.decode_kernels)) + " kernels at " +
                                              printf_text("%.2f", s.decode_kernel_each_s * 1e6) + " µs each beyond their reads"
                                        : std::string(" of small-kernel floors (2 µs each)")) +
                                   (s.decode_moe_floor_s > 0 ? ", " + duration_text(s.decode_moe_floor_s) + " of fused-MoE kernel minimum" : "") +
                                   (s.cuda_graphs ? ", CUDA graphs" : ", no CUDA graphs: " + duration_text(s.decode_launch_s) + " of host launches") +
                                   (s.decode_host_s > 0 ? ", " + duration_text(s.decode_host_s) + " of host scheduling" : "") + " per step");
        w.field("tokens_per_s_per_seq", s.tokens_per_s_per_seq);
        write_range(w, "tokens_per_s_per_seq_range", seq);
        w.field("tokens_per_s_per_seq_text", rate_range_text(seq.v, seq.lo, seq.hi, "tok/s per sequence"));
        w.field("tokens_per_s_replica", s.tokens_per_s_replica);
        write_range(w, "tokens_per_s_replica_range", rep);
        w.field("tokens_per_s_replica_text", rate_range_text(rep.v, rep.lo, rep.hi, "tok/s per replica"));
        w.field("tokens_per_s_cluster", s.tokens_per_s_cluster);
        write_range(w, "tokens_per_s_cluster_range", all);
        w.field("tokens_per_s_cluster_text", rate_range_text(all.v, all.lo, all.hi, "tok/s in all"));
        w.field("bound_tokens_per_s", s.bound_tokens_per_s).field("bound_tokens_per_s_text", rate_text(s.bound_tokens_per_s, "tok/s per sequence"));
        w.field("prefill_s", s.prefill_s).field("prefill_text", duration_text(s.prefill_s) + " to prefill " + tokens_text(static_cast<double>(r.prompt_tokens)));
        w.field("ttft_s", s.ttft_s);
        write_range(w, "ttft_range_s", ttft);
        w.field("ttft_text", duration_range_text(ttft.v, ttft.lo, ttft.hi) + " to first token");
        const Ranged tpot = time_range(s.tpot_s, rr);
        w.field("tpot_s", s.tpot_s);
        write_range(w, "tpot_range_s", tpot);
        w.field("tpot_text", duration_range_text(tpot.v, tpot.lo, tpot.hi) + " per output token with " + n_text(r.concurrency) +
                                 (r.concurrency == 1 ? " sequence" : " sequences, the others' prompts prefilled between steps"));
        w.field("range_text", range_note(rr, "serving"));
        w.field("decode_bound", s.decode_compute_bound ? "compute" : "memory");
        w.field("comm_s", s.decode_comm_s).field("comm_text", duration_text(s.decode_comm_s) + " of TP/PP communication per token" +
                                                              (s.tp > 1 ? std::string(" (") + s.allreduce + " all-reduces)" : ""));
        w.field("bound_text", s.decode_compute_bound
                                  ? "Decode is compute-bound at this concurrency: the math of " + n_text(r.concurrency) + " sequences outweighs reading the weights."
                                  : "Decode is memory-bandwidth bound: every step reads the weights and the KV cache at " +
                                        percent_text(r.assume.memory_efficiency) + " of " + number_text(r.gpu.memory_tbps) +
                                        " TB/s, plus the floors above. At 100 % of the bandwidth, no floors and no communication a sequence cannot exceed " +
                                        rate_text(s.bound_tokens_per_s, "tok/s") + ".");
        w.end_object();
        if (!s.fits)
            notes.push_back("This layout does not fit: " + gb_text(s.memory_bytes) + " per GPU against " + capacity_text(gpu_bytes(r.gpu)) +
                            (r.auto_layout ? "; no split of " + n_text(r.gpus) + " GPUs holds the model with this load." : "; its rates are what it would reach if it did."));
        notes.push_back(std::string("Serving figures: the weights and KV a step reads at the bandwidth decode kernels reach, ") +
                        (serve_preset(job.engine).kernel_inventory
                             ? "every kernel the engine launches at its measured fixed cost in a CUDA graph, "
                             : "the small kernels' floors, the fused-MoE kernels' minimum, ") +
                        "the engine's all-reduces, and host launches where no CUDA graph replays them. " + range_note(rr, "serving"));
    }
    w.key("notes").begin_array();
    for (const auto& n : notes) w.value(n);
    w.end_array();
    return w.end_object().str();
}

}  // namespace vramcalc
