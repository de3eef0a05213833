// The cluster planner's answer: numbers and every text the page shows.
#include <algorithm>
#include <cmath>

#include "cluster/cluster.hpp"
#include "cluster/text.hpp"
#include "text/errors.hpp"
#include "text/json_writer.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

std::string n_text(int64_t v) { return std::to_string(v); }

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
    w.field("memory_tbps", g.memory_tbps).field("memory_bw_text", printf_text("%.3g", g.memory_tbps) + " TB/s");
    w.field("link", g.link).field("link_gbps", g.link_gbps).field("domain", static_cast<int64_t>(g.domain));
    w.field("link_text", g.domain > 1 ? std::string(g.link) + ", " + printf_text("%.0f", g.link_gbps) +
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
                                 : "each op at its measured rate: GEMMs at " + tflops_text(r.rates.gemm16 / 1e12) +
                                       " BF16 (" + r.rates.gemm_source + "), attention: " + r.rates.attn_source);
    row("memory_efficiency", a.memory_efficiency, "decode reads memory at " + percent_text(a.memory_efficiency) + " of peak bandwidth");
    row("link_efficiency", a.link_efficiency, "collectives reach " + percent_text(a.link_efficiency) + " of link line rate");
    row("overlap", a.overlap, "data-parallel and context-parallel traffic hides under " + percent_text(a.overlap) + " of compute");
    row("latency_us", a.latency_us, printf_text("%.3g", a.latency_us) + " µs per ring step");
    row("overlap_tp", a.overlap_tp ? 1 : 0, a.overlap_tp ? "TP collectives overlap compute" : "TP collectives are on the critical path");
    row("overlap_ep", a.overlap_ep ? 1 : 0, a.overlap_ep ? "EP all-to-alls overlap compute" : "EP all-to-alls are on the critical path");
    row("grad_reduce_bytes", a.grad_reduce_bytes, "gradients reduced with " + plain_number(a.grad_reduce_bytes) + " bytes per value");
    w.end_array();
}

std::string bound_text(const TrainStep& s) {
    const double share = [&] {
        if (s.bound_key == "compute") return s.compute_s / s.step_s;
        if (s.bound_key == "bubble") return s.bubble_s / s.step_s;
        for (const auto& c : s.comms)
            if (s.bound_key == c.key) return c.exposed_s / s.step_s;
        return 0.0;
    }();
    if (s.bound_key == "compute") return "compute-bound: the math takes " + percent_text(share) + " of the step";
    if (s.bound_key == "bubble") return "pipeline-bound: the bubble takes " + percent_text(share) + " of the step; add micro-batches";
    for (const auto& c : s.comms)
        if (s.bound_key == c.key)
            return "communication-bound: " + c.label + " over " + c.link + " takes " + percent_text(share) + " of the step";
    return "";
}

void write_summary(JsonWriter& w, const TrainStep& s) {
    w.begin_object().field("layout_text", layout_text(s.layout)).field("step_s", s.step_s).field("step_text", duration_text(s.step_s));
    w.field("tokens_per_s_per_gpu", s.tokens_per_s_per_gpu).field("tokens_per_s_per_gpu_text", rate_text(s.tokens_per_s_per_gpu, "tok/s"));
    w.field("mfu", s.mfu).field("mfu_text", percent_text(s.mfu)).field("memory_bytes", s.memory_bytes);
    w.field("memory_text", gb_text(s.memory_bytes)).field("fits", s.fits).field("bound", s.bound_key);
    w.field("bound_text", bound_text(s)).end_object();
}

void write_step(JsonWriter& w, const TrainStep& s, const ClusterRequest& r) {
    const Parallel& p = s.layout;
    w.key("train").begin_object();
    w.key("layout").begin_object().field("tp", p.tp).field("pp", p.pp).field("cp", p.cp).field("dp", p.dp).field("ep", p.ep);
    w.field("zero", p.zero).field("microbatches", p.microbatches).field("virtual_stages", p.virtual_stages);
    w.field("text", layout_text(p)).end_object();
    w.field("tokens_per_step", s.tokens_per_step).field("tokens_per_step_text", count_text(s.tokens_per_step) + " tokens");
    w.field("model_flops_per_token", s.model_flops_per_token).field("hardware_flops_per_token", s.hardware_flops_per_token);
    w.field("flops_text", printf_text("%.3g", s.model_flops_per_token / 1e9) + " GFLOP per token (6·N + attention)" +
                              (s.hardware_flops_per_token > s.model_flops_per_token
                                   ? ", " + printf_text("%.3g", s.hardware_flops_per_token / 1e9) + " executed with recomputation"
                                   : ""));
    w.field("step_s", s.step_s).field("step_text", duration_text(s.step_s));
    w.field("tokens_per_s", s.tokens_per_s).field("tokens_per_s_text", rate_text(s.tokens_per_s, "tok/s"));
    w.field("tokens_per_s_per_gpu", s.tokens_per_s_per_gpu).field("tokens_per_s_per_gpu_text", rate_text(s.tokens_per_s_per_gpu, "tok/s per GPU"));
    w.field("mfu", s.mfu).field("mfu_text", percent_text(s.mfu) + " MFU").field("hfu", s.hfu).field("hfu_text", percent_text(s.hfu) + " HFU");
    w.key("terms").begin_array();
    auto term = [&](const std::string& key, const std::string& label, const std::string& link, double time, double exposed, const std::string& why) {
        w.begin_object().field("key", key).field("label", label).field("link", link).field("time_s", time).field("exposed_s", exposed);
        w.field("share", exposed / s.step_s).field("time_text", duration_text(time)).field("exposed_text", duration_text(exposed));
        w.field("share_text", percent_text(exposed / s.step_s)).field("why", why).end_object();
    };
    std::string biggest;
    double most = 0;
    for (const Op& op : s.ops)
        if (op.time_s > most) most = op.time_s, biggest = op.label;
    term("compute", "Compute", "", s.compute_s, s.compute_s,
         r.assume.compute_efficiency > 0
             ? "every matmul and attention FLOP at " + percent_text(r.assume.compute_efficiency) + " of its peak (the override)"
             : "per-op roofline over " + n_text(static_cast<int64_t>(s.ops.size())) + " ops (below); the largest: " + biggest);
    if (s.bubble_s > 0) term("bubble", "Pipeline bubble", "", s.bubble_s, s.bubble_s, s.bubble_why);
    for (const auto& c : s.comms) term(c.key, c.label, c.link, c.time_s, c.exposed_s, c.why + ", " + gb_text(c.bytes) + " per GPU per step");
    w.end_array();
    w.key("ops").begin_array();
    for (const Op& op : s.ops) {
        w.begin_object().field("key", op.key).field("label", op.label).field("time_s", op.time_s);
        w.field("share", op.time_s / s.step_s).field("time_text", duration_text(op.time_s));
        w.field("share_text", percent_text(op.time_s / s.step_s)).field("flops", op.flops).field("bytes", op.bytes);
        w.field("why", op.why).end_object();
    }
    w.end_array();
    w.field("schedule", s.schedule);
    w.field("precision", r.recipe ? r.recipe->label : "BF16");
    w.field("bound", s.bound_key).field("bound_text", bound_text(s));
    w.field("memory_bytes", s.memory_bytes).field("memory_text", gb_text(s.memory_bytes) + " per GPU").field("fits", s.fits);
    w.field("fits_text", s.fits ? "fits in " + capacity_text(gpu_bytes(r.gpu)) : "does not fit in " + capacity_text(gpu_bytes(r.gpu)));
    if (r.token_budget > 0) {
        const double time = r.token_budget / s.tokens_per_s;
        const double gpu_hours = time * static_cast<double>(p.gpus()) / 3600;
        w.key("budget").begin_object().field("tokens", r.token_budget).field("tokens_text", count_text(r.token_budget) + " tokens");
        w.field("time_s", time).field("time_text", duration_text(time)).field("gpu_hours", gpu_hours);
        w.field("gpu_hours_text", count_text(gpu_hours) + " GPU-hours");
        if (r.price_per_gpu_hour > 0)
            w.field("cost", gpu_hours * r.price_per_gpu_hour)
                .field("cost_amount_text", money_text(gpu_hours * r.price_per_gpu_hour))
                .field("cost_text", money_text(gpu_hours * r.price_per_gpu_hour) + " at " + money_text(r.price_per_gpu_hour) + " per GPU-hour");
        w.end_object();
    }
    w.end_object();
}

// Why the best beats the runner-up: the time per token component that grows most.
std::string runner_up_why(const TrainStep& best, const TrainStep& next) {
    const double per_b = 1 / best.tokens_per_step, per_n = 1 / next.tokens_per_step;
    std::string label = "Compute";
    double worst = next.compute_s * per_n - best.compute_s * per_b;
    auto consider = [&](const std::string& l, double nt, double bt) {
        if (nt * per_n - bt * per_b > worst) worst = nt * per_n - bt * per_b, label = l;
    };
    consider("the pipeline bubble", next.bubble_s, best.bubble_s);
    for (const auto& c : next.comms) {
        double bt = 0;
        for (const auto& d : best.comms)
            if (c.key == d.key) bt = d.exposed_s;
        consider(c.label + " over " + c.link, c.exposed_s, bt);
    }
    const double slower = best.tokens_per_s / next.tokens_per_s - 1;
    return "Runner-up " + layout_text(next.layout) + " is " + percent_text(slower) + " slower: " + label + " costs " +
           duration_text(worst * best.tokens_per_step) + " more per " + count_text(best.tokens_per_step) + " tokens.";
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
        const std::vector<TrainStep> ranked = rank_layouts(model, job, r);
        const TrainStep chosen = r.auto_layout ? (ranked.empty() ? throw InputError("cluster.gpus", "no layout splits this model over " + n_text(r.gpus) + " GPUs") : ranked.front())
                                               : train_step(model, job, r, checked_layout(model, job, r));
        write_step(w, chosen, r);
        // The recommender only returns layouts that fit (the estimate's own per-GPU memory); when none
        // does, best is null and the least memory-hungry layout is shown, flagged, with what to change.
        const bool any = !ranked.empty() && ranked.front().fits;
        w.key("recommendation").begin_object().field("considered", static_cast<int64_t>(ranked.size()));
        int64_t fitting = 0;
        for (const auto& t : ranked) fitting += t.fits ? 1 : 0;
        w.field("fitting", fitting);
        w.key("best");
        if (any) write_summary(w, ranked.front());
        else w.raw("null");
        const bool runner = ranked.size() > 1 && ranked[1].fits;
        w.key("runner_up");
        if (runner) write_summary(w, ranked[1]);
        else w.raw("null");
        if (!any && !ranked.empty()) {  // none fits: the recommender sorted them least memory first
            w.key("least_memory");
            write_summary(w, ranked.front());
        }
        w.field("why", ranked.empty() ? "No layout splits this model over " + n_text(r.gpus) + " GPUs."
                       : !any ? "No layout fits in memory on " + n_text(r.gpus) + " × " + r.gpu.name + "; the least memory-hungry still needs " +
                                    gb_text(ranked.front().memory_bytes) + " per GPU. Add GPUs, ZeRO-3 or checkpointing."
                       : runner ? runner_up_why(ranked.front(), ranked[1]) : "No other layout fits in memory.");
        w.key("candidates").begin_array();
        for (size_t i = 0; i < std::min<size_t>(8, ranked.size()); ++i)
            if (ranked[i].fits) write_summary(w, ranked[i]);
        w.end_array();
        w.end_object();
        if (!chosen.fits)
            notes.push_back("This layout does not fit: " + gb_text(chosen.memory_bytes) + " per GPU against " +
                            capacity_text(gpu_bytes(r.gpu)) + "; its times are what it would take if it did.");
        notes.push_back("Step time is a model, not a measurement: each op at the rate published benchmarks measure on this GPU "
                        "(GEMMs, attention kernels, streaming ops), plus the schedule's pipeline bubble, plus each collective at the "
                        "link it crosses; real runs add CPU launch gaps, stragglers, power caps and load imbalance.");
        if (model.config.is_moe()) notes.push_back("Mixture of experts: compute follows the active parameters; expert load is taken as balanced.");
    } else {
        if (!r.auto_layout) checked_layout(model, job, r);  // the same checks as for training
        const ServeResult s = serve(model, job, r);
        w.key("serve").begin_object();
        w.key("layout").begin_object().field("tp", s.tp).field("pp", s.pp).field("replicas", s.replicas);
        w.field("text", "TP " + n_text(s.tp) + " × PP " + n_text(s.pp) + (s.replicas > 1 ? ", " + n_text(s.replicas) + " replicas" : ", one replica")).end_object();
        w.field("memory_bytes", s.memory_bytes).field("memory_text", gb_text(s.memory_bytes) + " per GPU").field("fits", s.fits);
        w.field("concurrency", r.concurrency).field("prompt_tokens", r.prompt_tokens).field("output_tokens", r.output_tokens);
        w.field("weights_read_bytes", s.weights_read_bytes).field("kv_read_bytes", s.kv_read_bytes);
        w.field("kv_prompt_bytes", s.kv_prompt_bytes).field("kv_end_bytes", s.kv_end_bytes);
        w.field("kv_text", "the running sequences hold " + gb_text(s.kv_prompt_bytes) + " of KV at the prompt, " +
                               gb_text(s.kv_end_bytes) + " at the end of the output, per GPU");
        w.field("allreduce", s.allreduce);
        w.field("read_text", gb_text(s.weights_read_bytes) + " of weights + " + gb_text(s.kv_read_bytes) + " of KV cache per GPU per step");
        w.field("token_s", s.token_s).field("token_text", duration_text(s.token_s) + " per decode step");
        w.field("kernel_s", s.decode_kernel_s).field("kernel_text", duration_text(s.decode_kernel_s) + " of small-kernel floors (2 µs each) per step");
        w.field("tokens_per_s_per_seq", s.tokens_per_s_per_seq).field("tokens_per_s_per_seq_text", rate_text(s.tokens_per_s_per_seq, "tok/s per sequence"));
        w.field("tokens_per_s_replica", s.tokens_per_s_replica).field("tokens_per_s_replica_text", rate_text(s.tokens_per_s_replica, "tok/s per replica"));
        w.field("tokens_per_s_cluster", s.tokens_per_s_cluster).field("tokens_per_s_cluster_text", rate_text(s.tokens_per_s_cluster, "tok/s in all"));
        w.field("bound_tokens_per_s", s.bound_tokens_per_s).field("bound_tokens_per_s_text", rate_text(s.bound_tokens_per_s, "tok/s per sequence"));
        w.field("prefill_s", s.prefill_s).field("prefill_text", duration_text(s.prefill_s) + " to prefill " + count_text(static_cast<double>(r.prompt_tokens)) + " tokens");
        w.field("ttft_s", s.ttft_s).field("ttft_text", duration_text(s.ttft_s) + " to first token");
        w.field("decode_bound", s.decode_compute_bound ? "compute" : "memory");
        w.field("comm_s", s.decode_comm_s).field("comm_text", duration_text(s.decode_comm_s) + " of TP/PP communication per token" +
                                                              (s.tp > 1 ? std::string(" (") + s.allreduce + " all-reduces)" : ""));
        w.field("bound_text", s.decode_compute_bound
                                  ? "Decode is compute-bound at this concurrency: the math of " + n_text(r.concurrency) + " sequences outweighs reading the weights."
                                  : "Decode is memory-bandwidth bound: every step reads the weights and the KV cache at " +
                                        percent_text(r.assume.memory_efficiency) + " of " + printf_text("%.3g", r.gpu.memory_tbps) +
                                        " TB/s. This is an upper bound: at 100 % of the bandwidth and no communication a sequence cannot exceed " +
                                        rate_text(s.bound_tokens_per_s, "tok/s") + ".");
        w.end_object();
        if (!s.fits)
            notes.push_back("This layout does not fit: " + gb_text(s.memory_bytes) + " per GPU against " + capacity_text(gpu_bytes(r.gpu)) +
                            (r.auto_layout ? "; no split of " + n_text(r.gpus) + " GPUs holds the model with this load." : "; its rates are what it would reach if it did."));
        notes.push_back("Serving figures are a roofline: engine overheads (scheduling, sampling, kernel launches) only lower them.");
    }
    w.key("notes").begin_array();
    for (const auto& n : notes) w.value(n);
    w.end_array();
    return w.end_object().str();
}

}  // namespace vramcalc
