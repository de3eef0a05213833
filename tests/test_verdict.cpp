// Issue 23: one verdict for the user's GPUs, agreeing with the GPU table and the fewest-GPUs answer
// by construction; the training views in the classic explanation's words; the serving view.
#include <doctest/doctest.h>

#include "answers/inverse.hpp"
#include "answers/views.hpp"
#include "hardware/gpus.hpp"
#include "text/units.hpp"
#include "helpers.hpp"

using nlohmann::json;
using namespace vramcalc;

namespace {
const GpuFit& row(const Estimate& e, const std::string& id) {
    for (const GpuFit& f : e.fits)
        if (f.id == id) return f;
    FAIL("no GPU " << id);
    return e.fits.front();
}
}  // namespace

TEST_CASE("verdict: QLoRA Llama 3.1 8B fits an RTX 4090, with its headroom") {
    const Estimate e = estimate(test::model("llama-3.1-8b"), test::job({{"mode", "qlora"}, {"gpu", "rtx4090"}}));
    const Verdict& v = e.verdict;
    CHECK(std::string(v.status) == "fits");
    CHECK(v.capacity_bytes == 23.64 * test::GiB);  // PyTorch's total capacity of a 4090 (hardware/gpus.cpp)
    CHECK(v.used_bytes == e.breakdown.total());    // the breakdown's own total, not another sum
    CHECK(v.used_bytes <= 0.9 * v.capacity_bytes);
    // "✓ fits your RTX 4090 24GB: 15.39 GB of 25.38 GB (61 %), 10.00 GB free" (issue 23's example, to the digit)
    CHECK(v.text.rfind("✓ fits your RTX 4090 24GB: ", 0) == 0);
    CHECK(v.text.find(gb_text(v.used_bytes) + " of 25.38 GB (") != std::string::npos);
    CHECK(v.text.find(gb_text(v.capacity_bytes - v.used_bytes) + " free") != std::string::npos);
    CHECK(row(e, "rtx4090").fits_as_configured);
}

TEST_CASE("verdict: tight under 10 % headroom, and the needs clause is the GPU table's count") {
    SUBCASE("Mistral 7B Q4_K_M at 32k on an RTX 3060: 93 % used") {
        const Estimate e = estimate(test::model("mistral-7b"),
                                    test::job({{"engine", "llamacpp"}, {"llamacpp_version", "2024-11"}, {"dtype", "q4_k_m"},
                                               {"gpu", "rtx3060"}, {"seq", 32768}}));
        CHECK(std::string(e.verdict.status) == "tight");
        CHECK(e.verdict.headroom_share < 0.10);
        CHECK(e.verdict.headroom_share >= 0);
        CHECK(e.verdict.text.find("tight") != std::string::npos);
    }
    SUBCASE("Llama 3 8B BF16 on an RTX 3060: needs the count the table and min_gpus give") {
        const Model m = test::model("llama-3-8b");
        const Job job = test::job({{"gpu", "rtx3060"}});
        const Estimate e = estimate(m, job);
        CHECK(std::string(e.verdict.status) == "no");
        const Answer fewest = solve(m, job, Question::MinGpus);
        REQUIRE(fewest.found);
        CHECK(e.verdict.needs_gpus == fewest.value);
        CHECK(e.verdict.needs_gpus == row(e, "rtx3060").gpus_needed);
        CHECK(e.verdict.needs_per_gpu_bytes == fewest.total_at);
        CHECK(e.verdict.text.find("needs " + std::to_string(fewest.value) + " × RTX 3060 12GB") != std::string::npos);
    }
    SUBCASE("DeepSeek-V3 as shipped (FP8) on H100s: 709 GB, 9 of them, tight") {
        const Model m = test::model("deepseek-v3");
        const Estimate e = estimate(m, test::job({{"gpu", "h100"}}));
        CHECK(e.weights_source == WeightsSource::QuantizationConfig);
        CHECK(e.breakdown.total() > 700e9);
        CHECK(e.breakdown.total() < 720e9);
        CHECK(e.verdict.needs_gpus == row(e, "h100").gpus_needed);
        CHECK(e.verdict.needs_gpus == solve(m, test::job({{"gpu", "h100"}}), Question::MinGpus).value);
        CHECK(e.verdict.needs_gpus == 9);
        // Not "per GPU": the one-GPU figure is the whole job's, each GPU's is said as such.
        CHECK(e.verdict.text.find(" each of ") != std::string::npos);
    }
}

TEST_CASE("recommendations: training from data-centre GPUs with headroom, never a Mac with 0.21 GB to spare") {
    const Model m = test::model("llama-3-8b");
    const Estimate e = estimate(m, test::job({{"mode", "train"}}));
    const Recommendation& r = e.verdict.recommendation;
    REQUIRE(r.found);
    CHECK(gpu_kind(find_gpu(r.gpu_id, "gpu")) == GpuKind::Datacenter);
    CHECK_FALSE(r.tight);
    CHECK(r.per_gpu_bytes <= 0.9 * r.capacity_bytes);
    // 154.44 GB: the H200 (139.81 GiB = 150.1 GB) is too small for one, the B200 (178.35 GiB) holds it with 19 % free.
    CHECK(r.gpu_id == "b200");
    CHECK(r.gpus == 1);
    CHECK(e.verdict.headline.rfind("needs " + gb_text(e.breakdown.total()) + " on one GPU → 1 × B200 192GB", 0) == 0);
    // From any GPU, the M2 Ultra (144 GiB usable) holds it with 0.1 % free: a roomier one is named instead.
    const Estimate any = estimate(m, test::job({{"mode", "train"}, {"recommend_from", "any"}}));
    CHECK(any.verdict.recommendation.gpu_id != "m2-ultra-192");
    CHECK_FALSE(any.verdict.recommendation.tight);
    // A training job the user's GPU never holds is pointed at a data-centre GPU too.
    const Estimate mine = estimate(m, test::job({{"mode", "train"}, {"gpu", "rtx4090"}}));
    CHECK(std::string(mine.verdict.status) == "no");
    CHECK(mine.verdict.needs_gpus == 0);
    CHECK(mine.verdict.recommendation.gpu_id == "b200");
}

TEST_CASE("verdict under vLLM: the requests' KV against the pool, in one unit") {
    // Qwen3-30B-A3B: 48 layers × 2 × 4 KV heads × 128 × 2 bytes = 98,304 bytes of KV per token.
    const Estimate e = estimate(test::model("qwen3-30b-a3b"),
                                test::job({{"engine", "vllm"}, {"gpu", "h100"}, {"batch", 16}, {"seq", 32768}}));
    CHECK(e.serving_view.pooled);
    CHECK(e.serving_view.kv_needed == 16.0 * 32768 * 98304);
    CHECK(e.serving_view.pool_bytes == e.serving.kv_pool);
    const int64_t users = static_cast<int64_t>(e.serving.kv_pool / (32768.0 * 98304));
    CHECK(e.serving_view.users_at_context == users);
    CHECK(e.serving_view.text.rfind("needs 51.54 GB of KV for 16 users × 32,768 tokens; the pool holds ", 0) == 0);
    CHECK(std::string(e.verdict.status) == "no");
    CHECK(e.verdict.used_bytes == e.serving_view.kv_needed);
    CHECK(e.verdict.needs_gpus == row(e, "h100").gpus_needed);
    // A load the pool holds: fits.
    const Estimate three = estimate(test::model("qwen3-30b-a3b"),
                                    test::job({{"engine", "vllm"}, {"gpu", "h100"}, {"batch", 3}, {"seq", 32768}}));
    CHECK(std::string(three.verdict.status) != "no");
}

TEST_CASE("llama.cpp: partial offload with the most -ngl that fits") {
    // llama.cpp before --fit (2024-11) asked for every layer runs out of memory: the answer is the most -ngl that
    // fits, as the command then says; the newest llama.cpp's --fit reaches the same -ngl for a dense model.
    const Model m = test::model("llama-3-70b");
    const Job job = test::job({{"engine", "llamacpp"}, {"llamacpp_version", "2024-11"}, {"dtype", "q4_k_m"}, {"gpu", "rtx3060"}});
    const Estimate e = estimate(m, job);
    CHECK(std::string(e.verdict.status) == "partial");
    const Answer ngl = solve(m, job, Question::MaxGpuLayers);
    REQUIRE(ngl.found);
    CHECK(e.gpu_layers == ngl.value);
    CHECK(e.verdict.used_bytes == ngl.total_at);
    CHECK(e.local.gpu.need_bytes == ngl.total_at);
    CHECK(e.verdict.text.find("-ngl " + std::to_string(ngl.value) + " of 80 layers") != std::string::npos);
    CHECK(e.command.text.find(" -ngl " + std::to_string(ngl.value) + " ") != std::string::npos);
}

TEST_CASE("training views: 16 bytes of model state per parameter, split as the classic explanation counts it") {
    const Model m = test::model("llama-3-8b");
    const Estimate e = estimate(m, test::job({{"mode", "train"}}));
    REQUIRE(e.training_views.size() == 2);
    const TrainingView& classic = e.training_views[0];
    const double P = m.params.total;  // 8,030,261,248
    auto bytes = [](const TrainingView& v, const std::string& key) {
        for (const ViewRow& r : v.rows)
            if (r.key == key) return r.bytes;
        FAIL("no row " << key);
        return 0.0;
    };
    // ZeRO paper §3: mixed-precision Adam keeps 2 + 2 bytes (weights, gradients) + 12 (fp32 m, v, master).
    CHECK(bytes(classic, "weights") == 2 * P);
    CHECK(bytes(classic, "gradients") == 2 * P);
    CHECK(bytes(classic, "optimizer_moments") == 8 * P);
    CHECK(bytes(classic, "master_weights") == 4 * P);
    CHECK(bytes(classic, "activations") == e.activations_saved_bytes);
    CHECK(classic.total == doctest::Approx(16 * P + e.activations_saved_bytes));
    const TrainingView& peak = e.training_views[1];
    CHECK(peak.total == e.breakdown.total());
    CHECK(bytes(peak, "optimizer_moments") + bytes(peak, "master_weights") == e.breakdown.bytes[kOptimizer]);
    CHECK(bytes(peak, "master_weights") == 4 * P);
    CHECK(bytes(peak, "gradients") == e.breakdown.bytes[kGradients]);
    // The 6–10 × note stays.
    bool rule = false;
    for (const auto& n : e.notes) rule = rule || n.find("6–10 ×") != std::string::npos;
    CHECK(rule);
    // LoRA: no master copy.
    const Estimate lora = estimate(m, test::job({{"mode", "lora"}}));
    CHECK(bytes(lora.training_views[0], "master_weights") == 0);
}

TEST_CASE("units: every text in the job's unit, capacities stated once") {
    const Model m = test::model("llama-3-8b");
    const Estimate gb = estimate(m, test::job({{"gpu", "rtx4090"}}));
    const json a = json::parse(estimate_json(m, test::job({{"gpu", "rtx4090"}}), gb));
    CHECK(a["total_text"] == "18.87 GB");
    CHECK(a["verdict"]["capacity_text"] == "25.38 GB");
    const Job gib_job = test::job({{"gpu", "rtx4090"}, {"units", "gib"}});
    const json b = json::parse(estimate_json(m, gib_job, estimate(m, gib_job)));
    CHECK(b["units"] == "gib");
    CHECK(b["total_text"] == fixed_text(18868203673.6 / test::GiB, 2) + " GiB");
    CHECK(b["verdict"]["capacity_text"] == "23.64 GiB");
    for (const json& f : b["fits"]) {
        const std::string text = f["capacity_text"];
        CHECK_MESSAGE(text.find("GB") == std::string::npos, text);  // one unit, no "(… GB)" beside it
        CHECK(!f["capacity_source"].get<std::string>().empty());
    }
    for (const json& t : b["terms"]) CHECK_MESSAGE(t["why"].get<std::string>().find(" GB") == std::string::npos, t["why"]);
    // llama.cpp's buffers read in the job's unit, not MiB, unless asked for MiB.
    const Job cpp = test::job({{"engine", "llamacpp"}, {"dtype", "q4_k_m"}});
    const json c = json::parse(estimate_json(m, cpp, estimate(m, cpp)));
    for (const json& t : c["terms"]) CHECK(t["why"].get<std::string>().find("MiB") == std::string::npos);
    const Job mib = test::job({{"engine", "llamacpp"}, {"dtype", "q4_k_m"}, {"units", "mib"}});
    CHECK(json::parse(estimate_json(m, mib, estimate(m, mib)))["terms"][0]["why"].get<std::string>().find("MiB") != std::string::npos);
    // device_gb: the user's memory in decimal GB.
    CHECK(test::job({{"device_gb", 24}}).device_gib == doctest::Approx(24e9 / test::GiB));
}

TEST_CASE("errors carry a plain label for their field") {
    const std::string cfg = find_model(test::models(), "llama-3-8b").config.dump();
    const json seq = json::parse(estimate_request(cfg, R"({"seq":0})"));
    CHECK(seq["error"]["field"] == "job.seq");
    CHECK(seq["error"]["label"] == "Sequence length");
    CHECK(seq["error"]["text"].get<std::string>().rfind("Sequence length: must be", 0) == 0);
    const json vllm = json::parse(estimate_request(cfg, R"({"engine":"vllm"})"));
    CHECK(vllm["error"]["label"] == "Your GPU");
    CHECK(vllm["error"]["text"].get<std::string>().find("device_gib") == std::string::npos);
    CHECK(json::parse(estimate_request(cfg, R"({"tensor_split":[1,2]})"))["error"]["label"] == "Tensor split (-ts)");
    CHECK(json::parse(estimate_request(cfg, R"({"optimizer_dtype":"int4"})"))["error"]["label"] == "Optimizer-state dtype");
}
