// The cluster planner against hand-derived values: every collective's time,
// the training step's FLOPs and traffic terms, the serving roofline, the
// recommender's choices, and the errors of bad requests.
#include <cmath>

#include <doctest/doctest.h>

#include "cluster/calibration.hpp"
#include "cluster/gemm_table.hpp"

#include "cluster/cluster.hpp"
#include "cluster/collectives.hpp"
#include "text/errors.hpp"
#include "helpers.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

ClusterRequest request(const json& cluster, const Job& job) { return parse_cluster(cluster, job); }

const CommTerm& comm(const TrainStep& s, const std::string& key) {
    for (const auto& c : s.comms)
        if (key == c.key) return c;
    throw std::runtime_error("no comm term " + key);
}

json answer(const std::string& model, const json& job, const json& cluster) {
    return json::parse(cluster_request(find_model(test::models(), model).config.dump(), job.dump(), cluster.dump()));
}

}  // namespace

TEST_CASE("collective times, hand-derived") {
    const Link fast{"test", 100e9, 0};  // 100 GB/s, no latency
    SUBCASE("ring all-reduce: 2(n-1)/n · bytes / bw") {
        CHECK(all_reduce_time(1e9, 8, fast) == doctest::Approx(2.0 * 7 / 8 * 1e9 / 100e9));  // 17.5 ms
        CHECK(all_reduce_time(1e9, 2, fast) == doctest::Approx(0.01));                      // 2·1/2 = 1 × 10 ms
        const Link slow{"test", 100e9, 5e-6};
        CHECK(all_reduce_time(1e9, 8, slow) == doctest::Approx(0.0175 + 14 * 5e-6));  // + 2(n-1) steps of α
    }
    SUBCASE("reduce-scatter and all-gather: (n-1)/n · bytes / bw") {
        const Link l{"test", 50e9, 0};
        CHECK(reduce_scatter_time(1e9, 4, l) == doctest::Approx(0.015));
        CHECK(all_gather_time(1e9, 4, l) == doctest::Approx(0.015));
        // ZeRO's accounting: reduce-scatter + all-gather moves what one all-reduce moves.
        CHECK(reduce_scatter_time(1e9, 8, fast) + all_gather_time(1e9, 8, fast) ==
              doctest::Approx(all_reduce_time(1e9, 8, fast)));
    }
    SUBCASE("all-to-all: (n-1)/n of the buffer leaves each GPU") {
        CHECK(all_to_all_time(8e8, 8, fast) == doctest::Approx(0.007));
    }
    SUBCASE("point to point: bytes / bw + α") {
        CHECK(p2p_time(1e8, Link{"test", 25e9, 10e-6}) == doctest::Approx(0.004 + 10e-6));
    }
    SUBCASE("one GPU or no bytes costs nothing") {
        CHECK(all_reduce_time(1e9, 1, fast) == 0);
        CHECK(all_to_all_time(0, 8, fast) == 0);
    }
}

TEST_CASE("a group runs at the slowest link its span crosses") {
    Topology hgx{{"nvlink", 1, 0}, 8, {"pcie", 1, 0}, 8, {"fabric", 1, 0}};
    CHECK(link_for(hgx, 1, 8).name == "nvlink");   // TP 8 inside the board
    CHECK(link_for(hgx, 1, 16).name == "fabric");  // TP 16 leaves the node
    CHECK(link_for(hgx, 8, 2).name == "fabric");   // DP across nodes with TP 8 inside
    Topology bridged{{"bridge", 1, 0}, 2, {"pcie", 1, 0}, 8, {"fabric", 1, 0}};
    CHECK(link_for(bridged, 1, 2).name == "bridge");
    CHECK(link_for(bridged, 1, 4).name == "pcie");  // pairs are bridged, the rest goes over PCIe
    CHECK(link_for(bridged, 4, 2).name == "pcie");
    Topology nvl72{{"nvl72", 1, 0}, 72, {"pcie", 1, 0}, 4, {"fabric", 1, 0}};
    CHECK(link_for(nvl72, 1, 64).name == "nvl72");  // the NVLink domain spans 18 trays
    CHECK(link_for(nvl72, 8, 16).name == "fabric");
}

TEST_CASE("collectives across nodes: NCCL's rings cross on every NIC of the group's GPUs in a node") {
    Topology hgx{{"nvlink", 360e9, 0}, 8, {"pcie", 50e9, 0}, 8, {"fabric", 40e9, 0}};
    // FSDP over 16 nodes with TP 1: 8 GPUs of the group per node, 8 rings each leaving through its own NIC.
    CHECK(collective_link_for(hgx, 1, 128).bytes_per_s == 8 * 40e9);
    // DP with TP 8 inside the node: one GPU of the group per node, one NIC.
    CHECK(collective_link_for(hgx, 8, 16).bytes_per_s == 40e9);
    // TP 2 inside: 4 per node.
    CHECK(collective_link_for(hgx, 2, 64).bytes_per_s == 4 * 40e9);
    // Inside the node it is the NVLink ring, as link_for.
    CHECK(collective_link_for(hgx, 1, 8).name == "nvlink");
    // Two NVL72 racks: the 64-way FSDP group of a TP 2 layout has 36 GPUs in a rack; its rings cross between
    // the racks on 36 NICs, faster than NVLink, so NVLink bounds them (nemo2509-gb200-405b-fp8cs).
    Topology nvl72{{"nvl72", 720e9, 0}, 72, {"pcie", 50e9, 0}, 4, {"fabric", 40e9, 0}};
    CHECK(collective_link_for(nvl72, 2, 64).bytes_per_s == 720e9);
    // Point-to-point hops (pipeline, ring attention) still leave through one NIC.
    CHECK(link_for(hgx, 1, 128).bytes_per_s == 40e9);
}

TEST_CASE("catalog: 40+ accelerators with the figures the planner needs") {
    CHECK(gpu_catalog().size() >= 40);
    for (const Gpu& g : gpu_catalog()) {
        CAPTURE(g.id);
        CHECK(g.memory_gib > 0);
        CHECK(g.memory_gib <= g.marketed_gb);
        CHECK(g.tflops_bf16 > 0);
        CHECK(g.memory_tbps > 0);
        CHECK(std::string(g.source).size() > 5);
    }
    // Apple: the GPU wires 75 % of unified memory by default.
    CHECK(find_gpu("m2-ultra-192", "gpu").memory_gib == 144);
    // B200: what CUDA reports (totalGlobalMem 178.35 GiB, pytorch/ao#4002), not the 192 GB on the package.
    CHECK(gpu_bytes(find_gpu("b200", "gpu")) == 178.35 * test::GiB);
    // The usable figures are PyTorch's "total capacity": an H100 80GB reports 79.11 GiB (vllm-project/vllm#27508).
    CHECK(find_gpu("h100", "gpu").memory_gib == 79.11);
    // An H200 reports 139.81 GiB (sungwon-chae/arxiv_confi etu_logging.md), not the 141 on the box.
    CHECK(find_gpu("h200", "gpu").memory_gib == 139.81);
    CHECK(find_gpu("h100", "gpu").marketed_gb == 80);
    // MI250X: one GCD is one PyTorch device.
    CHECK(find_gpu("mi250x", "gpu").memory_gib == 64);
    CHECK(find_gpu("gb200", "gpu").domain == 72);
    CHECK_THROWS_WITH_AS(find_gpu("h1000", "cluster.gpu"), doctest::Contains("cluster.gpu: unknown GPU 'h1000'"), InputError);
    CHECK(fabric_catalog().size() >= 8);
}

TEST_CASE("training step: FLOPs and each traffic term, hand-derived (Llama 3.1 8B on H100)") {
    const Model m = test::model("llama-3.1-8b");
    // 8,030,261,248 params; the 128,256 × 4,096 input table does no matmul.
    const double N = 8030261248.0 - 128256.0 * 4096;
    // 900 GB/s bidirectional, 80 % link efficiency; a flat 5 µs per ring step (latency_us: NCCL's latencies by
    // size and protocol have their own test below)
    const double nvlink = 450e9 * 0.8, alpha = 5e-6;
    SUBCASE("FSDP on one node: 6·N + 12·L·h·s FLOPs per token, all-gather ×2 + reduce-scatter") {
        const Job job = test::job({{"mode", "train"}, {"batch", 2}, {"seq", 8192}});
        const ClusterRequest r = request({{"gpu", "h100"}, {"gpus", 8}, {"layout", {{"zero", 3}}}, {"latency_us", 5}}, job);
        Parallel p;
        p.dp = 8, p.zero = 3;
        const TrainStep s = train_step(m, job, r, p);
        CHECK(s.model_flops_per_token == doctest::Approx(6 * N + 12.0 * 32 * 4096 * 8192));  // 57.9 GFLOP
        CHECK(s.tokens_per_step == 8 * 2 * 8192);
        double ops = 0;  // the compute is the sum of its ops (the per-op roofline, test_cluster_roofline.cpp)
        for (const Op& op : s.ops) ops += op.time_s;
        // ... run at the pace of the slowest of the 8 GPUs: the board-busy mean (698.6 / 702.9 on an H200, the same
        // die) less the expected minimum of 8 draws over its 4.5 % range.
        CHECK(s.slowest == doctest::Approx(698.6 / 702.9 * (1 - 0.045 / 2 + 0.045 / 9)));
        CHECK(s.compute_s == doctest::Approx(ops / s.slowest));
        const double P = 8030261248.0;  // all weights all-gathered in bf16, gradients reduce-scattered in fp32
        const double ag = 7.0 / 8 * P * 2 / nvlink + 7 * alpha, rs = 7.0 / 8 * P * 4 / nvlink + 7 * alpha;
        CHECK(comm(s, "dp").time_s == doctest::Approx(2 * ag + rs));
        CHECK(comm(s, "dp").exposed_s == 0);  // 0.16 s hides under 70 % of 2.4 s of compute
        // The overlap slowdown: the compute the FSDP traffic hides under runs 18.9 % slower while it does (Lee et
        // al. 2025), so the step pays 0.189 × the hidden traffic; and the fitted kernel gaps of eager PyTorch.
        CHECK(s.overlapped_s == doctest::Approx(2 * ag + rs));
        CHECK(s.interference_s == doctest::Approx(0.189 * (2 * ag + rs)));
        CHECK(s.gaps_s == doctest::Approx(fitted_gap_fraction(Framework::Custom, false) * s.compute_s));
        CHECK(s.step_s == doctest::Approx(s.compute_s + s.interference_s + s.gaps_s));
        // MFU against the dense BF16 peak: model FLOPs × tokens/s per GPU / 989.4 TFLOPS
        CHECK(s.mfu == doctest::Approx(s.model_flops_per_token * s.tokens_per_s_per_gpu / 989.4e12));
    }
    SUBCASE("full recomputation: 8·N, and MFU stays at 6·N") {
        const Job job = test::job({{"mode", "train"}, {"seq", 4096}, {"checkpointing", "full"}});
        const ClusterRequest r = request({{"gpus", 1}}, job);
        const TrainStep s = train_step(m, job, r, Parallel{});
        CHECK(s.hardware_flops_per_token == doctest::Approx(s.model_flops_per_token * 4 / 3));
        CHECK(s.hfu == doctest::Approx(s.mfu * 4 / 3));
        CHECK(s.comms.empty());
    }
    SUBCASE("TP 8: 4 all-reduces of b·s·h per layer per micro-batch, on the critical path") {
        const Job job = test::job({{"mode", "train"}, {"batch", 1}, {"seq", 4096}});
        const ClusterRequest r = request({{"gpus", 8}, {"layout", {{"tp", 8}}}, {"latency_us", 5}}, job);
        Parallel p;
        p.tp = 8, p.microbatches = 8;  // global batch 8 sequences over one data-parallel replica
        const TrainStep s = train_step(m, job, r, p);
        const double act = 4096.0 * 4096 * 2;  // 33.5 MB
        // Sequence parallelism: a reduce-scatter and an all-gather, rings of (n−1)/n each = one all-reduce's 2(n−1)/n.
        const double one = 2.0 * 7 / 8 * act / nvlink + 14 * alpha;
        CHECK(comm(s, "tp").time_s == doctest::Approx(8 * 32 * 4 * one));  // 0.239 s
        CHECK(comm(s, "tp").exposed_s == comm(s, "tp").time_s);
        CHECK(comm(s, "tp").link == "NVLink 4 (NVSwitch)");
    }
    SUBCASE("PP 4: bubble (p-1)/(v·m) of compute and 2 sends per micro-batch") {
        const Job job = test::job({{"mode", "train"}, {"batch", 1}, {"seq", 4096}});
        const ClusterRequest r = request({{"gpus", 4}, {"latency_us", 5}}, job);
        Parallel p;
        p.pp = 4, p.microbatches = 4;
        const TrainStep s = train_step(m, job, r, p);
        // 1F1B: (p − 1)(F + B) = 3/4 of the 4 micro-batches' compute (the optimizer step is outside it).
        double optimizer = 0;
        for (const Op& op : s.ops)
            if (std::string(op.key) == "optimizer") optimizer = op.time_s;
        CHECK(s.bubble_s == doctest::Approx((s.compute_s - optimizer / s.slowest) * 3 / 4));
        p.virtual_stages = 2;
        const TrainStep v2 = train_step(m, job, r, p);
        CHECK(v2.bubble_s == doctest::Approx((s.compute_s - optimizer / s.slowest) * 3 / 8));
        const double act = 4096.0 * 4096 * 2;
        CHECK(comm(s, "pp").time_s == doctest::Approx(8 * (act / nvlink + alpha)));
    }
    SUBCASE("plain data parallel over 100 Gb/s TCP Ethernet: 2(n-1)/n of fp32 gradients per step") {
        const Job job = test::job({{"mode", "train"}, {"batch", 1}, {"seq", 2048}});
        const ClusterRequest r = request({{"gpus", 16}, {"fabric", "eth-100"}, {"layout", {{"zero", 0}}}, {"latency_us", 5}}, job);
        Parallel p;
        p.dp = 16;
        const TrainStep s = train_step(m, job, r, p);
        // 2 nodes of 8: NCCL's rings cross between the nodes on the 8 NICs of each node at once.
        const double eth = 100e9 / 8 * 0.8 * 0.5;  // line rate × link efficiency × TCP factor
        CHECK(comm(s, "dp").time_s == doctest::Approx(2.0 * 15 / 16 * 8030261248.0 * 4 / (8 * eth) + 30 * alpha));
        CHECK(s.bound_key == "dp");
    }
}

TEST_CASE("expert and context parallel traffic (DeepSeek-V3, Llama 3.1 8B long context)") {
    SUBCASE("EP all-to-all: 4 per MoE layer per micro-batch of tokens × top-k × h") {
        const Model m = test::model("deepseek-v3");
        const Job job = test::job({{"mode", "train"}, {"batch", 1}, {"seq", 4096}});
        const ClusterRequest r = request({{"gpu", "h800"}, {"gpus", 64}, {"layout", {{"ep", 8}, {"zero", 1}}}, {"latency_us", 5}}, job);
        Parallel p;
        p.dp = 64, p.ep = 8, p.zero = 1;
        const TrainStep s = train_step(m, job, r, p);
        const double bytes = 4096.0 * 8 * 7168 * 2;      // tokens × top-8 × hidden × bf16
        const double h800 = 200e9 * 0.8;                 // NVLink 400 GB/s bidirectional
        CHECK(comm(s, "ep").time_s == doctest::Approx(58 * 4 * (7.0 / 8 * bytes / h800 + 7 * 5e-6)));
    }
    SUBCASE("CP ring: 3(cp-1) hops of a K/V chunk per layer") {
        const Model m = test::model("llama-3.1-8b");
        const Job job = test::job({{"mode", "train"}, {"batch", 1}, {"seq", 65536}});
        const ClusterRequest r = request({{"gpus", 4}, {"latency_us", 5}}, job);
        Parallel p;
        p.cp = 4;
        const TrainStep s = train_step(m, job, r, p);
        const double chunk = 65536.0 / 4 * (2 * 8 * 128) * 2;  // s/cp tokens × K and V of 8 heads × 128 × bf16
        CHECK(comm(s, "cp").time_s == doctest::Approx(32 * 9 * (chunk / (450e9 * 0.8) + 5e-6)));
    }
}

TEST_CASE("serving roofline, hand-derived (Llama 3 8B F16 on one RTX 4090)") {
    const Model m = test::model("llama-3-8b");
    const Job job = test::job({{"mode", "inference"}, {"dtype", "fp16"}});
    const ClusterRequest r = request({{"gpu", "rtx4090"}, {"gpus", 1}, {"prompt_tokens", 1}, {"output_tokens", 512}}, job);
    const ServeResult s = serve(m, job, r);
    const double weights = 8030261248.0 * 2;
    const double kv = 32 * (2 * 8 * 128) * 513 * 2.0 * (1 + 256.0) / 513;  // average context 1 + 512/2
    CHECK(s.weights_read_bytes == doctest::Approx(weights));
    CHECK(s.kv_read_bytes == doctest::Approx(kv));
    // the bytes at 80 % of 1,008 GB/s, plus 32 layers × 11 small kernels × their 2 µs floor
    CHECK(s.tokens_per_s_per_seq == doctest::Approx(1 / ((weights + kv) / (1.008e12 * 0.8) + 32 * 11 * 2e-6)));  // 48.4 tok/s
    CHECK(s.bound_tokens_per_s == doctest::Approx(1.008e12 / (weights + kv)));
    CHECK_FALSE(s.decode_compute_bound);
    // A 1,024-token prompt is compute-bound: 2·N per token at the GEMM rate the 4090 sustains (no MAMF is published
    // for it: the H100's 80.3 % of peak in bursts, at the 0.845 sustained-to-burst ratio measured on the H200 and
    // B200) at the shape's efficiency (1,024 rows of 4,096 × 4,096), plus causal attention at the FA3-on-H100
    // forward fraction at 1k (off Hopper), 423 / 989.4, at the same sustained clock; plus one chunk's small-kernel
    // floors (32 layers × 11 × 2 µs).
    const ClusterRequest r2 = request({{"gpu", "rtx4090"}, {"gpus", 1}, {"prompt_tokens", 1024}, {"output_tokens", 1}}, job);
    const double N = 8030261248.0 - 128256.0 * 4096;
    const double sustained = (702.9 / 828.0 + 1455.7 / 1732.6) / 2;
    const double linear = 1024 * 2 * N / (165.2e12 * 794.5 / 989.4 * sustained * gemm_efficiency(1024, 4096, 4096, false));
    const double attention = 32 * 1024.0 * 1024 * 32 * 256 / (165.2e12 * 423 / 989.4 * sustained);
    CHECK(serve(m, job, r2).prefill_s == doctest::Approx(linear + attention + 32 * 11 * 2e-6));
}

TEST_CASE("serving: MoE decode reads only the experts a step touches") {
    const Model m = test::model("mixtral-8x7b");
    const Job job = test::job({{"mode", "inference"}, {"dtype", "fp16"}});
    const ServeResult one = serve(m, job, request({{"gpus", 2}, {"concurrency", 1}}, job));
    const ServeResult many = serve(m, job, request({{"gpus", 2}, {"concurrency", 64}}, job));
    // 1 sequence: 2 of 8 experts; 64 sequences: 1 − (6/8)^64 ≈ all of them.
    CHECK(one.weights_read_bytes < 0.45 * many.weights_read_bytes);
    CHECK(many.tokens_per_s_replica > 10 * one.tokens_per_s_replica);
}

TEST_CASE("recommender: the issue's questions") {
    SUBCASE("8B on 8 H100: pure data parallel beats tensor parallel; the runner-up is explained") {
        const json a = answer("llama-3.1-8b", {{"mode", "train"}, {"seq", 4096}, {"checkpointing", "selective"}}, {{"gpus", 8}});
        const json& rec = a["recommendation"];
        CHECK(a["train"]["layout"]["tp"] == 1);
        CHECK(rec["best"]["fits"] == true);
        CHECK(rec["runner_up"]["fits"] == true);
        CHECK(rec["runner_up"]["tokens_per_s_per_gpu"].get<double>() <= rec["best"]["tokens_per_s_per_gpu"].get<double>());
        CHECK(rec["why"].get<std::string>().rfind("Runner-up ", 0) == 0);
    }
    SUBCASE("70B on 16 H100 needs model sharding; TP stays inside the NVLink domain") {
        const json a = answer("llama-3.1-70b", {{"mode", "train"}, {"seq", 4096}, {"checkpointing", "full"}}, {{"gpus", 16}});
        CHECK(a["recommendation"]["best"]["fits"] == true);
        CHECK(a["train"]["layout"]["tp"].get<int>() <= 8);
        for (const json& t : a["train"]["terms"])
            if (t["key"] == "tp") CHECK(t["link"] == "NVLink 4 (NVSwitch)");
    }
    SUBCASE("ZeRO-3 over 64 GPUs on 100 Gb/s Ethernet is communication-bound") {
        const json a = answer("llama-3.1-8b", {{"mode", "train"}, {"seq", 4096}},
                              {{"gpus", 64}, {"fabric", "eth-100"}, {"layout", {{"zero", 3}}}});
        CHECK(a["train"]["bound"] == "dp");
        CHECK(a["train"]["bound_text"].get<std::string>().find("communication-bound") == 0);
    }
    SUBCASE("70B on 2 × 4090 in 4-bit: a pipeline of two reads 42.5 GB per token; TP 2 halves that") {
        const json job = {{"mode", "inference"}, {"dtype", "q4_k_m"}};
        const json pp = answer("llama-3.1-70b", job, {{"gpu", "rtx4090"}, {"gpus", 2}, {"layout", {{"pp", 2}}}});
        CHECK(pp["serve"]["fits"] == true);
        const double read = pp["serve"]["weights_read_bytes"].get<double>() + pp["serve"]["kv_read_bytes"].get<double>();
        // Stages run in turn: 2 × per-GPU bytes at 80 % of 1,008 GB/s, plus one 16 KB hop over PCIe, plus
        // 80 layers × 11 small kernels at their 2 µs floor.
        CHECK(pp["serve"]["token_s"].get<double>() ==
              doctest::Approx(2 * read / (1.008e12 * 0.8) + 8192.0 * 2 / (31.5e9 * 0.8) + 5e-6 + 80 * 11 * 2e-6));
        const json tp = answer("llama-3.1-70b", job, {{"gpu", "rtx4090"}, {"gpus", 2}});
        CHECK(tp["serve"]["layout"]["tp"] == 2);  // the automatic layout: tensor parallel first
        CHECK(tp["serve"]["tokens_per_s_per_seq"].get<double>() > 1.8 * pp["serve"]["tokens_per_s_per_seq"].get<double>());
    }
    SUBCASE("nothing fits: no layout is recommended; the least memory-hungry is shown, flagged, and why") {
        const json a = answer("llama-3.1-405b", {{"mode", "train"}, {"seq", 4096}}, {{"gpu", "rtx4090"}, {"gpus", 8}});
        const json& rec = a["recommendation"];
        CHECK(rec["best"].is_null());
        CHECK(rec["fitting"] == 0);
        CHECK(rec["candidates"].empty());
        CHECK(rec["least_memory"]["fits"] == false);
        CHECK(a["train"]["fits"] == false);
        CHECK(rec["why"].get<std::string>().rfind("No layout fits in memory on 8 × RTX 4090 24GB", 0) == 0);
    }
    SUBCASE("budget: time, GPU-hours and cost for a token count") {
        const json a = answer("llama-3.1-8b", {{"mode", "train"}, {"seq", 4096}},
                              {{"gpus", 8}, {"tokens", 1e12}, {"price_per_gpu_hour", 2}});
        const json& b = a["train"]["budget"];
        const double hours = 1e12 / a["train"]["tokens_per_s"].get<double>() * 8 / 3600;
        CHECK(b["gpu_hours"].get<double>() == doctest::Approx(hours));
        CHECK(b["cost"].get<double>() == doctest::Approx(2 * hours));
    }
}

TEST_CASE("every catalog GPU answers a training and a serving request") {
    for (const Gpu& g : gpu_catalog()) {
        CAPTURE(g.id);
        const json t = answer("llama-3.2-1b", {{"mode", "train"}, {"seq", 2048}}, {{"gpu", g.id}, {"gpus", 16}});
        CHECK(t["ok"] == true);
        const json s = answer("llama-3.2-1b", {{"mode", "inference"}}, {{"gpu", g.id}, {"gpus", 2}});
        CHECK(s["ok"] == true);
    }
}

TEST_CASE("bad cluster requests name the field") {
    const std::string cfg = find_model(test::models(), "llama-3.1-8b").config.dump();
    const std::string train = R"({"mode":"train"})";
    const std::pair<const char*, const char*> cases[] = {
        {R"({"gpu":"h1000"})", "cluster.gpu"},
        {R"({"fabric":"carrier-pigeon"})", "cluster.fabric"},
        {R"({"gpus":0})", "cluster.gpus"},
        {R"({"gpus":"many"})", "cluster.gpus"},
        {R"({"compute_efficiency":0})", "cluster.compute_efficiency"},
        {R"({"overlap":1.5})", "cluster.overlap"},
        {R"({"warp_drive":true})", "cluster.warp_drive"},
        {R"({"gpus":6,"layout":{"tp":4}})", "cluster.layout"},
        {R"({"gpus":8,"layout":{"tp":3}})", "cluster.layout"},
        {R"({"gpus":8,"layout":{"ep":2}})", "cluster.layout.ep"},
        {R"({"gpus":8,"layout":{"tpp":2}})", "cluster.layout.tpp"},
        {R"({"gpus":8,"layout":"fast"})", "cluster.layout"},
        {R"({"gpu":"a100-80","matmul_dtype":"fp8"})", "cluster.matmul_dtype"},
        {R"({"matmul_dtype":"int3"})", "cluster.matmul_dtype"},
        {R"({"gpus":2,"layout":{"tp":4}})", "cluster.layout"},
        {R"({"fp8":"int3"})", "cluster.fp8"},
        {R"({"schedule":"zigzag"})", "cluster.schedule"},
        {R"({"attention":"fa9"})", "cluster.attention"},
        {R"({"node_limit":0})", "cluster.node_limit"},
        {R"({"dispatch_bytes":9})", "cluster.dispatch_bytes"},
        {R"({"fp8_all_gather":"yes"})", "cluster.fp8_all_gather"},
        {R"([1,2])", "cluster"},
        {R"({"gpus":)", "cluster"},
    };
    for (const char* job : {train.c_str(), R"({"mode":"inference"})"})
        for (const auto& [cluster_json, field] : cases) {
            const char* cluster = cluster_json;  // CAPTURE's lambda cannot capture a structured binding before C++20
            CAPTURE(job);
            CAPTURE(cluster);
            const json r = json::parse(cluster_request(cfg, job, cluster));
            CHECK(r["ok"] == false);
            CHECK(r["error"]["field"].get<std::string>() == field);
        }
}

TEST_CASE("the cluster's GPU is the job's own unless the cluster names one (found by review)") {
    CHECK(std::string(request(json::object(), test::job({{"gpu", "h200"}})).gpu.id) == "h200");
    CHECK(std::string(request(json::object(), test::job(json::object())).gpu.id) == "h100");
    CHECK(std::string(request({{"gpu", "b200"}}, test::job({{"gpu", "h200"}})).gpu.id) == "b200");
}

TEST_CASE("serving: the job's own stages are the layout timed, as the estimate lays them out") {
    // DeepSeek-V3 FP8 on 16 GPUs: pp 1 is TP over all 16, pp 2 is TP 8 × PP 2 (core/layout.cpp);
    // the planner timed TP 1 × PP 9 for pp 1 and TP 1 × PP 2 (8 replicas) for pp 2.
    const Model m = test::model("deepseek-v3");
    for (const auto& [stages, tp] : {std::pair<int64_t, int64_t>{1, 16}, {2, 8}}) {
        const int64_t pp = stages;  // CAPTURE's lambda cannot capture a structured binding before C++20
        CAPTURE(pp);
        const Job job = test::job({{"mode", "inference"}, {"dtype", "fp8"}, {"gpus", 16}, {"pp", pp}});
        const ServeResult s = serve(m, job, request(json::object(), job));
        CHECK(s.tp == tp);
        CHECK(s.pp == pp);
        CHECK(s.replicas == 1);
    }
}
