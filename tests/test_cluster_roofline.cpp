// The cluster planner's per-op roofline against hand-derived values: a GEMM's time by shape on an H100,
// the attention tables, the low-precision recipes' casts, the pipeline schedules' bubbles, the engines'
// all-reduces by size, the planner's decode KV and memory against the estimate's own (issues 21, 22, 26).
#include <cmath>

#include <doctest/doctest.h>

#include "answers/estimate.hpp"
#include "cluster/cluster.hpp"
#include "cluster/collectives.hpp"
#include "cluster/gemm_table.hpp"
#include "cluster/kernels.hpp"
#include "cluster/sustained.hpp"
#include "helpers.hpp"
#include "text/errors.hpp"
#include "step/timeline.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

const Rates& h100(const std::string& fp8 = "none") {
    static const Job job = test::job({{"mode", "train"}});
    static const ClusterRequest bf16 = parse_cluster(json{{"gpu", "h100"}}, job);
    static const ClusterRequest tensorwise = parse_cluster(json{{"gpu", "h100"}, {"fp8", "tensorwise"}}, job);
    return fp8 == "none" ? bf16.rates : tensorwise.rates;
}

double op_time(const TrainStep& s, const std::string& key) {
    for (const Op& op : s.ops)
        if (key == op.key) return op.time_s;
    return 0;
}

}  // namespace

TEST_CASE("GEMM by shape on an H100: the sustained rate × XLA's measured efficiency, else bandwidth, else the floor") {
    const Rates& r = h100();
    // The sustained BF16 rate: the H200's MSMF, 702.9 TFLOPS (the same GH100 die at 700 W), not the 828 burst.
    CHECK(r.gemm16 == doctest::Approx(702.9e12));
    // 16384 × 4096 × 4096: XLA's sm_90 table, K = N = 4,096, M = 16,384 (4 batches of 4,096 rows): its peak
    // entry, 788.7 of its own 788.7 → efficiency 1.
    const double flops = 2.0 * 16384 * 4096 * 4096;
    CHECK(gemm_efficiency(16384, 4096, 4096, false) == doctest::Approx(1.0));
    CHECK(gemm_s(r, 16384, 4096, 4096, false, 2) == doctest::Approx(flops / 702.9e12));  // 0.782 ms
    // A table entry: 1,024 × 4,096 × 4,096 ran at 751.9 TFLOPS of the table's best 788.7.
    CHECK(gemm_efficiency(1024, 4096, 4096, false) == doctest::Approx(751.9 / 788.7).epsilon(1e-3));
    // Shallow K pays each tile's fixed time: 4 × 4096² × 512 at 620 of 788.7 (the table).
    CHECK(gemm_efficiency(16384, 4096, 512, false) == doctest::Approx(620.0 / 788.7).epsilon(0.01));
    // One token (decode GEMV) of a 4096 × 14336 weight: memory-bound, 2 · (4096 + 4096·14336 + 14336) bytes at
    // 92 % of 3.35 TB/s.
    const double bytes = 2.0 * (4096 + 4096.0 * 14336) + 2.0 * 14336;
    CHECK(gemm_s(r, 1, 14336, 4096, false, 2) == doctest::Approx(bytes / (3.35e12 * 0.92)));  // 38 µs
    // A tiny GEMM costs the 2 µs floor.
    CHECK(gemm_s(r, 16, 64, 64, false, 2) == doctest::Approx(2e-6));
    // FP8 operands at the FP8 MSMF, 1,288.7 TFLOPS.
    const Rates& f = h100("tensorwise");
    CHECK(f.gemm_low == doctest::Approx(1288.7e12));
    CHECK(gemm_s(f, 16384, 4096, 4096, true, 1) == doctest::Approx(flops / 1288.7e12));
}

TEST_CASE("sustained against burst: a whole step's power draw holds GEMMs below their short-burst rate") {
    // stas00/ml-engineering (mamf-finder v4): the H200 sustains 702.9 BF16 TFLOPS at 700 W against 828.0 in a
    // burst; the B200 1,455.7 at 1,000 W against 1,732.6. A large training GEMM (16384 × 8192 × 8192, one
    // second's work at burst rate is 1.17 s sustained) is timed at the sustained rate.
    const Job job = test::job({{"mode", "train"}});
    const ClusterRequest h200 = parse_cluster(json{{"gpu", "h200"}}, job), b200 = parse_cluster(json{{"gpu", "b200"}}, job);
    const double flops = 2.0 * 16384 * 8192 * 8192;
    CHECK(gemm_s(h200.rates, 16384, 8192, 8192, false, 2) == doctest::Approx(flops / 702.9e12));
    CHECK(gemm_s(h200.rates, 16384, 8192, 8192, false, 2) / (flops / 828.0e12) == doctest::Approx(828.0 / 702.9));
    CHECK(b200.rates.gemm16 == doctest::Approx(1455.7e12));
    // A GPU without a sustained measurement: its burst MAMF at the measured parts' mean ratio (A100: 271.2 ×
    // (0.8489 + 0.8402) / 2 = 229.0).
    const ClusterRequest a100 = parse_cluster(json{{"gpu", "a100-80"}}, job);
    CHECK(a100.rates.gemm16 == doctest::Approx(271.2e12 * (702.9 / 828.0 + 1455.7 / 1732.6) / 2));
    // The slowest of a synchronous group: 8 B200s under load average 2 % below one alone and spread over 10.4 %:
    // the expected slowest of 8 is 0.9799 × (1 − 0.052 + 0.104 / 9).
    CHECK(slowest_of(b200.rates.sustained, 8) == doctest::Approx(1426.4 / 1455.7 * (1 - 0.052 + 0.104 / 9)));
    CHECK(slowest_of(b200.rates.sustained, 1) == 1);
    // A lower power limit: the cube root of the power ratio (H100 at 350 W: 0.794 of the 700 W rate).
    const ClusterRequest capped = parse_cluster(json{{"gpu", "h100"}, {"power_w", 350}}, job);
    CHECK(capped.rates.gemm16 == doctest::Approx(702.9e12 * std::cbrt(0.5)));
    // Never above the burst ceiling, however high the limit.
    const ClusterRequest high = parse_cluster(json{{"gpu", "h100"}, {"power_w", 4000}}, job);
    CHECK(high.rates.gemm16 == doctest::Approx(828.0e12));
    // Out-of-range power, efficiencies or overlap are refused naming the field.
    CHECK_THROWS_WITH_AS(parse_cluster(json{{"power_w", 0}}, job), doctest::Contains("cluster.power_w"), InputError);
    CHECK_THROWS_WITH_AS(parse_cluster(json{{"overlap", 0}}, job), doctest::Contains("cluster.overlap"), InputError);
    CHECK_THROWS_WITH_AS(parse_cluster(json{{"link_efficiency", 1.5}}, job), doctest::Contains("cluster.link_efficiency"), InputError);
    CHECK_THROWS_WITH_AS(parse_cluster(json{{"memory_efficiency", 0}}, job), doctest::Contains("cluster.memory_efficiency"), InputError);
    CHECK_THROWS_WITH_AS(parse_cluster(json{{"gpu", "m2-ultra-192"}, {"power_w", 300}}, job), doctest::Contains("cluster.power_w"), InputError);
}

TEST_CASE("attention rates: FlashAttention-3 paper's H100 tables, interpolated in log(seq)") {
    const Rates& r = h100();  // torch SDPA: FlashAttention-2
    CHECK(attention_fraction(r, 128, 8192, false) == doctest::Approx(333 / 989.4));  // FA2 forward, causal, 8k
    CHECK(attention_fraction(r, 128, 8192, true) == doctest::Approx(318 / 989.4));   // FA2 backward, 8k
    // 6k: log2(6144 / 512) = 3.585, between 4k (319) and 8k (333): 319 + 14 × 0.585
    CHECK(attention_fraction(r, 128, 6144, false) == doctest::Approx((319 + 14 * (std::log2(12.0) - 3)) / 989.4));
    // Past 16k the 16k figure; below 512 scaled down with the length.
    CHECK(attention_fraction(r, 128, 65536, false) == doctest::Approx(335 / 989.4));
    CHECK(attention_fraction(r, 128, 256, false) == doctest::Approx(191 / 989.4 / 2));
    // Megatron/NeMo call Transformer Engine: cuDNN's kernels (539 at 16k, forward causal).
    const ClusterRequest te = parse_cluster(json{{"gpu", "h100"}}, test::job({{"mode", "train"}, {"framework", "megatron"}}));
    CHECK(attention_fraction(te.rates, 128, 16384, false) == doctest::Approx(539 / 989.4));
}

TEST_CASE("low-precision linears: FP8 GEMMs plus torchao's cast traffic, the rest stays bf16") {
    const Model m = test::model("llama-3.1-8b");
    const Job job = test::job({{"mode", "train"}, {"batch", 2}, {"seq", 8192}});
    const ClusterRequest bf16 = parse_cluster(json{{"gpus", 8}, {"layout", {{"zero", 3}}}}, job);
    const ClusterRequest fp8 = parse_cluster(json{{"gpus", 8}, {"layout", {{"zero", 3}}}, {"fp8", "tensorwise"}}, job);
    Parallel p;
    p.dp = 8, p.zero = 3;
    const TrainStep a = train_step(m, job, bf16, p), b = train_step(m, job, fp8, p);
    // The layer linears speed up; attention, the head and the loss do not; the casts are new.
    CHECK(op_time(b, "linear") < 0.7 * op_time(a, "linear"));
    CHECK(op_time(b, "attention") == doctest::Approx(op_time(a, "attention")));
    CHECK(op_time(b, "head") == doctest::Approx(op_time(a, "head")));
    CHECK(op_time(a, "casts") == 0);
    // Casts, hand-derived: per layer q (4096→4096), k, v (4096→1024), o, gate, up (4096→14336), down
    // (14336→4096), M = 16,384 tokens; tensorwise eager: input 6 and grad 6 bytes per element (amax read 2,
    // cast read 2, two fp8 writes), weight 8 (amax + two casts of 2 + 1).
    double bytes = 0;
    for (const auto& [K, N] : std::vector<std::pair<double, double>>{
             {4096, 4096}, {4096, 1024}, {4096, 1024}, {4096, 4096}, {4096, 14336}, {4096, 14336}, {14336, 4096}})
        bytes += 16384 * K * 6 + 16384 * N * 6 + K * N * 8;
    bytes *= 32;
    for (const Op& op : b.ops)
        if (std::string(op.key) == "casts") CHECK(op.bytes == doctest::Approx(bytes));
    // MFU stays against the BF16 peak (989.4), as torchtitan and the Llama 3 paper count it.
    CHECK(b.mfu == doctest::Approx(b.model_flops_per_token * b.tokens_per_s_per_gpu / 989.4e12));
    // FP4 on a GPU without an FP4 peak is refused, naming the field.
    CHECK_THROWS_WITH_AS(parse_cluster(json{{"gpu", "h100"}, {"fp8", "nvfp4"}}, job), doctest::Contains("cluster.fp8"), InputError);
}

TEST_CASE("a power-capped part: the 700 W part's sustained rates at its power limit (Grand Teton H100, 500 W)") {
    const Job job = test::job({{"mode", "train"}});
    const ClusterRequest gt = parse_cluster(json{{"gpu", "h100-gt"}}, job);
    const ClusterRequest sxm = parse_cluster(json{{"gpu", "h100"}}, job);
    // The H100 at 700 W sustains 702.9 BF16 TFLOPS; at 500 W the cube root of the power ratio: 0.894 of it.
    const double power = std::cbrt(500.0 / 700);
    CHECK(gt.rates.power_factor == doctest::Approx(power));
    CHECK(gt.rates.gemm16 == doctest::Approx(702.9e12 * power));
    CHECK(find_gpu("h100-gt", "gpu").power_w == 500);
    CHECK(find_gpu("h100", "gpu").power_w == 700);
    // FlashAttention's tables (bursts at 700 W) run at the sustained clock (702.9 / 828.0) and the power limit.
    CHECK(sxm.rates.tensor_scale == doctest::Approx(702.9 / 828.0));
    CHECK(gt.rates.tensor_scale == doctest::Approx(702.9 / 828.0 * power));
    CHECK(attention_s(gt.rates, 1e12, 128, 8192, false) == doctest::Approx(attention_s(sxm.rates, 1e12, 128, 8192, false) / power));
    // FP8: the 700 W part's sustained 1,288.7 TFLOPS at the same power factor.
    const ClusterRequest gt8 = parse_cluster(json{{"gpu", "h100-gt"}, {"fp8", "tensorwise"}}, job);
    CHECK(gt8.rates.gemm_low == doctest::Approx(1288.7e12 * power));
}

TEST_CASE("eager norms and RoPE run in fp32 op by op; compiled or Transformer Engine ones fuse") {
    const Model m = test::model("llama-3.1-8b");
    Parallel p;
    p.dp = 8, p.zero = 3;
    const Job eager = test::job({{"mode", "train"}, {"batch", 2}, {"seq", 8192}});
    const Job compiled = test::job({{"mode", "train"}, {"batch", 2}, {"seq", 8192}, {"compile", true}});
    const ClusterRequest r = parse_cluster(json{{"gpus", 8}, {"layout", {{"zero", 3}}}}, eager);
    const ClusterRequest rc = parse_cluster(json{{"gpus", 8}, {"layout", {{"zero", 3}}}}, compiled);
    double e = 0, f = 0;
    for (const Op& op : train_step(m, eager, r, p).ops)
        if (std::string(op.key) == "elementwise") e = op.bytes;
    for (const Op& op : train_step(m, compiled, rc, p).ops)
        if (std::string(op.key) == "elementwise") f = op.bytes;
    // Per token and layer, h = 4096, q + k = 4096 + 1024 (RoPE), F = 14336: eager 2 norms × (36 + 56) + 2 residual
    // adds × 12, RoPE 2 × 20, SwiGLU 10 + 16; fused 2 × (8 + 8) norm + residual, RoPE 2 × 4, SwiGLU 6 + 10.
    const double tokens = 16384 * 32.0;
    CHECK(e == doctest::Approx(tokens * ((2 * 92 + 24) * 4096.0 + 40 * 5120.0 + 26 * 14336.0)));
    CHECK(f == doctest::Approx(tokens * (32 * 4096.0 + 8 * 5120.0 + 16 * 14336.0)));
}

TEST_CASE("TP collectives: what async TP and Megatron hide, and what stays on the critical path") {
    const Model m = test::model("llama-3.1-70b");
    Parallel p;
    p.tp = 8, p.dp = 1;
    auto tp_terms = [&](const Job& job, bool overlap) {
        const ClusterRequest r = parse_cluster(json{{"gpus", 8}, {"layout", {{"tp", 8}}}, {"overlap_tp", overlap}}, job);
        double hidden = 0, exposed = 0;
        for (const CommTerm& c : train_step(m, job, r, p).comms)
            if (std::string(c.key) == "tp") (c.exposed_s < c.time_s ? hidden : exposed) += c.time_s;
        return std::pair<double, double>{hidden, exposed};
    };
    // torch (torchtitan): without async TP all 8 reduce-scatters / all-gathers per layer wait (no recompute);
    // with it the forward's 4 and the backward's 2 all-gathers hide, the backward's 2 reduce-scatters do not
    // (their input is a sum of matmuls: pytorch/pytorch#149946).
    const Job titan = test::job({{"mode", "train"}, {"framework", "torchtitan"}, {"batch", 1}, {"seq", 8192}});
    const auto [h0, e0] = tp_terms(titan, false);
    const auto [h1, e1] = tp_terms(titan, true);
    CHECK(h0 == 0);
    CHECK(e1 == doctest::Approx(e0 * 2 / 8));
    CHECK(h1 == doctest::Approx(e0 * 6 / 8));
    // Megatron: the backward's reduce-scatters overlap the wgrad GEMMs without any switch; TP comm overlap hides the rest.
    const Job meg = test::job({{"mode", "train"}, {"framework", "megatron"}, {"batch", 1}, {"seq", 8192}});
    const auto [h2, e2] = tp_terms(meg, false);
    const auto [h3, e3] = tp_terms(meg, true);
    CHECK(h2 == doctest::Approx(e0 * 2 / 8));
    CHECK(e2 == doctest::Approx(e0 * 6 / 8));
    CHECK(e3 == 0);
    CHECK(h3 == doctest::Approx(e0));
}

TEST_CASE("pipeline schedules: the bubble from F, B and W of one micro-batch on a stage") {
    const Model m = test::model("llama-3.1-8b");
    const Job job = test::job({{"mode", "train"}, {"batch", 1}, {"seq", 4096}});
    Parallel p;
    p.pp = 4, p.microbatches = 8;
    auto bubble = [&](const char* schedule, int64_t v) {
        Parallel q = p;
        q.virtual_stages = v;
        return train_step(m, job, parse_cluster(json{{"gpus", 4}, {"schedule", schedule}}, job), q).bubble_s;
    };
    const TrainStep one = train_step(m, job, parse_cluster(json{{"gpus", 4}}, job), p);
    double opt = op_time(one, "optimizer");
    const double FB = (one.compute_s - opt / one.slowest) / 8;  // F + B of one micro-batch (at the slowest GPU's pace)
    CHECK(bubble("1f1b", 1) == doctest::Approx(3 * FB));                 // (p − 1)(F + B)
    CHECK(bubble("gpipe", 1) == doctest::Approx(3 * FB));                // the same idle time, more memory
    CHECK(bubble("interleaved", 2) == doctest::Approx(3 * FB / 2));      // ÷ v
    CHECK(bubble("zb", 1) < bubble("1f1b", 1) * 0.75);                   // (p − 1)(F + B − 2W)
    CHECK(bubble("zbv", 1) == doctest::Approx(bubble("zb", 1) / 2));
    CHECK(bubble("dualpipe", 1) < bubble("zb", 1));                      // (p/2 − 1)(F&B + B − 3W)
}

TEST_CASE("engines' all-reduces: custom one-shot / two-shot by size, NCCL ring or NVLS beyond") {
    const Link nvlink{"nvlink", 450e9 * 0.8, 5e-6};
    // DeepSeek-V3 decode, batch 1: 7,168 × 2 bytes. vLLM's custom all-reduce at 8 GPUs, between the
    // measured 4 KiB (9.3 µs) and 32 KiB (11.8 µs) points of sgl-project/sglang#2904: one-shot.
    const AllReduceChoice v = engine_all_reduce(AllReduceImpl::VllmCustom, 14336, 8, nvlink, true);
    CHECK(v.time_s == doctest::Approx((9.3 + 2.5 * (14336 - 4096) / (32768 - 4096)) * 1e-6));
    CHECK(std::string(v.algorithm) == "one-shot");
    // SGLang's TensorRT-LLM kernels at 1 MiB, 8 GPUs: 33.8 µs, two-shot.
    const AllReduceChoice t = engine_all_reduce(AllReduceImpl::TrtCustom, 1048576, 8, nvlink, true);
    CHECK(t.time_s == doctest::Approx(33.8e-6));
    CHECK(std::string(t.algorithm) == "two-shot");
    // Past the 8 MiB buffer: NCCL, NVLS on an H100 NVSwitch (B/bw + 2α), else the ring.
    CHECK(engine_all_reduce(AllReduceImpl::VllmCustom, 64e6, 8, nvlink, true).time_s == doctest::Approx(64e6 / 360e9 + 10e-6));
    CHECK(engine_all_reduce(AllReduceImpl::Nccl, 64e6, 8, nvlink, false).time_s == doctest::Approx(all_reduce_time(64e6, 8, nvlink)));
}

TEST_CASE("planner's decode KV: what the running sequences hold, not the engine's pool (issue 22)") {
    // Llama 3 8B, one 4k sequence on vLLM, 1 × H100: 32 layers × (K + V) × 8 kv heads × 128 × 2 bytes =
    // 128 KiB per token; at the 4,096-token prompt 4096 × 131,072 = 0.537 GB (vLLM's pool is ~51 GB).
    const Model m = test::model("llama-3-8b");
    const Job job = test::job({{"mode", "inference"}, {"engine", "vllm"}, {"gpu", "h100"}, {"seq", 4096}});
    const ClusterRequest r = parse_cluster(json{{"output_tokens", 512}}, job);
    CHECK(r.prompt_tokens == 4096);  // the job's sequence
    CHECK(r.concurrency == 1);       // the job's batch
    const ServeResult s = serve(m, job, r);
    CHECK(s.kv_prompt_bytes == doctest::Approx(4096.0 * 131072));
    CHECK(s.kv_prompt_bytes / 1e9 == doctest::Approx(0.54).epsilon(0.01));
    CHECK(s.kv_end_bytes == doctest::Approx(4608.0 * 131072));         // + 512 generated
    CHECK(s.kv_read_bytes == doctest::Approx((4096.0 + 4608) / 2 * 131072));
    // The job's new_tokens split its sequence into prompt and output.
    const Job gen = test::job({{"mode", "inference"}, {"seq", 4096}, {"new_tokens", 1024}, {"batch", 4}});
    const ClusterRequest g = parse_cluster(json::object(), gen);
    CHECK(g.prompt_tokens == 3072);
    CHECK(g.output_tokens == 1024);
    CHECK(g.concurrency == 4);
}

TEST_CASE("the planner's memory is the estimate's; a layout that does not fit is flagged (issues 21, 22)") {
    const Model m = test::model("llama-3.1-8b");
    const Job job = test::job({{"mode", "train"}, {"seq", 4096}, {"gpus", 8}, {"zero", 3}});
    Parallel p;
    p.dp = 8, p.zero = 3;
    bool fits = false;
    CHECK(train_memory(m, job, p, find_gpu("h100", "gpu"), fits) == doctest::Approx(estimate(m, job, false).breakdown.total()));
    CHECK(fits);
    // Serving 70B in bf16 on one 24 GB card: the layout is flagged, and the answer says so.
    const json a = json::parse(cluster_request(find_model(test::models(), "llama-3.1-70b").config.dump(),
                                               R"({"mode":"inference"})", R"({"gpu":"rtx4090","gpus":1})"));
    CHECK(a["serve"]["fits"] == false);
    bool said = false;
    for (const json& n : a["notes"]) said = said || n.get<std::string>().rfind("This layout does not fit", 0) == 0;
    CHECK(said);
    // The recommender's candidates all fit.
    const json t = json::parse(cluster_request(find_model(test::models(), "llama-3.1-70b").config.dump(),
                                               R"({"mode":"train","seq":4096,"checkpointing":"full"})", R"({"gpus":16})"));
    CHECK(t["recommendation"]["best"]["fits"] == true);
    for (const json& c : t["recommendation"]["candidates"]) CHECK(c["fits"] == true);
}

TEST_CASE("the single override: compute_efficiency runs every matmul and attention FLOP at that fraction") {
    const Job job = test::job({{"mode", "train"}});
    const ClusterRequest r = parse_cluster(json{{"gpu", "h100"}, {"compute_efficiency", 0.5}}, job);
    CHECK(gemm_s(r.rates, 16384, 4096, 4096, false, 2) == doctest::Approx(2.0 * 16384 * 4096 * 4096 / (989.4e12 * 0.5)));
    CHECK(attention_s(r.rates, 1e12, 128, 8192, false) == doctest::Approx(1e12 / (989.4e12 * 0.5)));
}

TEST_CASE("gpt-oss runs on llama.cpp: MXFP4 experts in every GGUF file type") {
    const Model m = test::model("gpt-oss-20b");
    const Estimate e = estimate(m, test::job({{"mode", "inference"}, {"engine", "llamacpp"}, {"gpu", "rtx4090"}}), false);
    // ggml-org's gpt-oss-20b-mxfp4.gguf: 24 layers × 3 expert tensors in MXFP4 (17 bytes / 32), the rest Q8_0.
    CHECK(e.serving.weights_mix.find("72 mxfp4") != std::string::npos);
    // A Q4_K_M file keeps the experts MXFP4 too (hermes-agent#116681 read unsloth's headers).
    const Estimate q = estimate(m, test::job({{"mode", "inference"}, {"engine", "llamacpp"}, {"dtype", "q4_k_m"}}), false);
    CHECK(q.serving.weights_mix.find("72 mxfp4") != std::string::npos);
}

TEST_CASE("EP across nodes: node-limited routing and FP8 dispatch (DeepSeek-V3 on H800, EP 64 over 8 nodes)") {
    const Model m = test::model("deepseek-v3");
    const Job job = test::job({{"mode", "train"}, {"batch", 1}, {"seq", 4096}});
    Parallel p;
    p.dp = 64, p.ep = 64, p.zero = 1;
    const json base = {{"gpu", "h800"}, {"gpus", 64}, {"layout", {{"ep", 64}, {"zero", 1}}}};
    json limited = base;
    limited["node_limit"] = 4;
    limited["dispatch_bytes"] = 1;
    const TrainStep all = train_step(m, job, parse_cluster(base, job), p);
    const TrainStep four = train_step(m, job, parse_cluster(limited, job), p);
    const CommTerm* a = nullptr;
    const CommTerm* f = nullptr;
    for (const auto& c : all.comms) if (std::string(c.key) == "ep") a = &c;
    for (const auto& c : four.comms) if (std::string(c.key) == "ep") f = &c;
    REQUIRE(a);
    REQUIRE(f);
    // 8 nodes, top-8: a token reaches 8·(1 − (7/8)^8) = 5.25 nodes, 4.60 of them remote; capped at 4 nodes,
    // 3.5 remote. Fabric bytes per MoE layer and micro-batch: 4096 tokens × remote × 7168 × the mean element
    // of the four all-to-alls ((1 + 3 × 2)/4 = 1.75 bytes with FP8 dispatch, 2 without); the fabric is the
    // slower path (400 Gb/s × 0.8 against NVLink's 200 GB/s × 0.8 for the 8 copies), after NCCL's send latency
    // (Simple protocol: 8.4 µs base + 14 µs a network hop).
    const double remote_all = 8 * (1 - std::pow(7.0 / 8, 8)) * 7 / 8, remote_four = 4.0 * 7 / 8;
    const double ib = 400e9 / 8 * 0.8;
    const double t_all = 4096 * remote_all * 7168 * 2 / ib + 22.4e-6, t_four = 4096 * remote_four * 7168 * 1.75 / ib + 22.4e-6;
    CHECK(a->time_s == doctest::Approx(58 * 4 * t_all));
    CHECK(f->time_s == doctest::Approx(58 * 4 * t_four));
    CHECK(a->link == "InfiniBand NDR 400 Gb/s per GPU");
}
