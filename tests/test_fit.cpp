// The GPU table's "GPUs needed" and the gpus field agree: every count the
// table names is a layout the field accepts, and at that count the job fits.
#include <doctest/doctest.h>

#include "text/errors.hpp"
#include "helpers.hpp"
#include "answers/inverse.hpp"
#include "step/timeline.hpp"

using namespace vramcalc;
using nlohmann::json;

TEST_CASE("every GPU count the fit table names is accepted by job.gpus and fits") {
    // Inference with no degree chosen (TP ≤ 8 dividing the heads, stages across) and training
    // with the chosen ZeRO stage; models whose heads make odd counts (gpt2: 12 heads; DeepSeek-V3: 128).
    const char* models[] = {"gpt2", "llama-3-8b", "llama-3-70b", "deepseek-v3"};
    const json jobs[] = {json::object(), {{"mode", "train"}, {"zero", 3}}, {{"mode", "train"}, {"zero", 2}}};
    int checked = 0;
    for (const char* id : models)
        for (const json& job : jobs) {
            const Model m = test::model(id);
            const Estimate e = estimate(m, test::job(job));
            for (const GpuFit& f : e.fits) {
                if (f.gpus_needed <= 1 || f.gpus_needed > 64 || f.custom) continue;
                CAPTURE(id);
                CAPTURE(job.dump());
                CAPTURE(f.id);
                CAPTURE(f.gpus_needed);
                json at = job;
                at["gpus"] = f.gpus_needed;
                const Breakdown b = compute_breakdown(m, test::job(at));  // throws if the count has no layout
                CHECK(b.total() <= f.capacity_bytes);
                ++checked;
            }
        }
    CHECK(checked > 40);
}

TEST_CASE("what fits on my GPU answers fine-tuning and training too") {
    const Model m = test::model("llama-3-8b");
    SUBCASE("LoRA on an RTX 4090: the longest context fits, one token more does not") {
        const Job job = test::job({{"mode", "lora"}, {"gpu", "rtx4090"}});
        const Answer a = solve(m, job, Question::MaxContext);
        REQUIRE(a.found);
        CHECK(a.value > 256);  // no checkpointing by default: about 9 MB of saved tensors per token
        CHECK(a.total_at <= 23.64 * test::GiB);   // PyTorch's total capacity for a 4090 (core/gpus.cpp)
        CHECK(a.total_next > 23.64 * test::GiB);
        CHECK_FALSE(a.fits_next);
        Job at = job, next = job;
        at.seq = a.value;
        next.seq = a.value + 1;
        CHECK(fits_device(m, at));
        CHECK_FALSE(fits_device(m, next));
    }
    SUBCASE("full training: the fewest H100s agree with the GPU table (ZeRO-3 / FSDP when none is chosen)") {
        const Job job = test::job({{"mode", "train"}, {"gpu", "h100"}});
        const Answer a = solve(m, job, Question::MinGpus);
        int64_t table = 0;
        for (const GpuFit& f : estimate(m, job).fits)
            if (std::string(f.id) == "h100") table = f.gpus_needed;
        CHECK(a.value == 3);  // test_memory.cpp "Llama-3-8B AdamW training needs 3 H100 with ZeRO-3"
        CHECK(a.value == table);
        CHECK(a.text == "fewest GPUs: 3 (ZeRO-3 / FSDP)");
        CHECK_FALSE(a.fits_next);
    }
    SUBCASE("QLoRA batch on a T4, and no weight-format question for training") {
        const Job job = test::job({{"mode", "qlora"}, {"gpu", "t4"}, {"seq", 2048}, {"checkpointing", "full"}});
        const Answer a = solve(m, job, Question::MaxBatch);
        REQUIRE(a.found);
        CHECK(a.total_at <= 14.56 * test::GiB);
        CHECK(a.total_next > 14.56 * test::GiB);
        CHECK_THROWS_WITH_AS(solve(m, job, Question::BestFormat), doctest::Contains("job.mode"), InputError);
    }
}

TEST_CASE("vLLM and SGLang: the GPU table asks the engine's pool test on each GPU, as the fewest-GPUs answer does") {
    // Found by review: Llama-3-70B on 2 H100 under vLLM read "fits" in the table while the engine's own pool
    // (0.62 GiB, 4,080 tokens < 4,096) did not hold one request; the table said 2, the answer 3.
    const std::pair<const char*, const char*> cases[] = {{"llama-3-70b", "h100"}, {"deepseek-v3", "h200"}, {"qwen3-235b-a22b", "h100"}};
    for (const auto& [model_id, gpu] : cases)
        for (const char* engine : {"vllm", "sglang"}) {
            const char* id = model_id;  // CAPTURE's lambda cannot capture a structured binding before C++20
            CAPTURE(id);
            CAPTURE(engine);
            const Model m = test::model(id);
            const Job job = test::job({{"engine", engine}, {"gpu", gpu}});
            const Answer fewest = solve(m, job, Question::MinGpus);
            REQUIRE(fewest.found);
            const Estimate e = estimate(m, job);
            for (const GpuFit& f : e.fits)
                if (std::string(f.id) == gpu) {
                    CHECK(f.gpus_needed == fewest.value);
                    CHECK(f.fits_as_configured == fits_device(m, job));
                }
        }
    const Estimate two = estimate(test::model("llama-3-70b"), test::job({{"engine", "vllm"}, {"gpu", "h100"}, {"gpus", 2}}));
    for (const GpuFit& f : two.fits)
        if (std::string(f.id) == "h100") CHECK_FALSE(f.fits_as_configured);
}

TEST_CASE("fewest GPUs: one step past is the largest smaller count that has a layout") {
    // DeepSeek-V3 (61 layers, 128 heads) on RTX 3060s: 132 = TP 4 × PP 33 fits; 131 (TP 1 × 131 stages),
    // 130 (TP 2 × 65) and 129 (TP 1 × 129) have more stages than layers; 128 = TP 8 × PP 16 does not fit.
    // (BF16 weights: the checkpoint's own FP8, dtype auto, halves every count.)
    const Answer a = solve(test::model("deepseek-v3"), test::job({{"gpu", "rtx3060"}, {"dtype", "bf16"}}), Question::MinGpus);
    REQUIRE(a.found);
    CHECK(a.value == 132);
    CHECK(a.next_exists);
    CHECK(a.next == 128);
    CHECK(a.next_label == "128 GPUs");
    CHECK(a.total_next > 11.75 * test::GiB);  // a real total, not the 0 of a count with no layout
    CHECK_FALSE(a.fits_next);
}

TEST_CASE("inference layout: pp given (even 1) is kept; unset, TP stays inside an 8-GPU node") {
    // DeepSeek-V3 (128 heads) on 16 GPUs. vLLM's own choice is the user's: --pipeline-parallel-size 1
    // means one stage and TP over all 16 (vLLM docs, "Distributed inference and serving").
    const Model m = test::model("deepseek-v3");
    const auto layout = [&](json job) { return resolve_layout(m.config, test::job(job)); };
    const Layout automatic = layout({{"gpus", 16}});
    CHECK(automatic.tp == 8);
    CHECK(automatic.pp == 2);
    const Layout one_stage = layout({{"gpus", 16}, {"pp", 1}});
    CHECK(one_stage.tp == 16);
    CHECK(one_stage.pp == 1);
    const Layout four_stages = layout({{"gpus", 16}, {"pp", 4}});
    CHECK(four_stages.tp == 4);
    CHECK(four_stages.pp == 4);
    // TP given, stages unset: one stage, the rest data-parallel replicas; training defaults to 1 and 1.
    const Layout tp4 = layout({{"gpus", 16}, {"tp", 4}});
    CHECK(tp4.pp == 1);
    CHECK(tp4.dp == 4);
    const Layout train = layout({{"gpus", 16}, {"mode", "train"}});
    CHECK(train.tp == 1);
    CHECK(train.pp == 1);
    CHECK(train.dp == 16);
}

TEST_CASE("one GPU is counted as the job runs on one GPU, without ZeRO-3's gather buffers") {
    // Llama 3.2 1B full training: 33.834 GB on one GPU as configured, 34.089 GB with ZeRO-3 on that one
    // GPU (FSDP's buffers with nothing to shard over; both from the CLI). A 31.62 GiB (33.95 GB) GPU holds
    // the first and not the second: it needs 1 GPU, as the job's own total says, not 2.
    const Model m = test::model("llama-3.2-1b");
    const json job = {{"mode", "train"}, {"device_gib", 31.62}};
    const Estimate e = estimate(m, test::job(job));
    REQUIRE(e.breakdown.total() == doctest::Approx(33.8335e9).epsilon(1e-4));
    bool seen = false;
    for (const GpuFit& f : e.fits)
        if (f.custom) {
            seen = true;
            CHECK(f.fits_as_configured);
            CHECK(f.gpus_needed == 1);
        }
    CHECK(seen);
    const Answer fewest = solve(m, test::job(job), Question::MinGpus);
    CHECK(fewest.found);
    CHECK(fewest.value == 1);
}

TEST_CASE("inference: the table and fewest GPUs keep the job's own TP or PP, and the answer names its layout") {
    // DeepSeek-V3 BF16 on H100s. Unset: TP ≤ 8 and stages across. pp 1: one stage, TP over all (128 heads:
    // 32 fits, 16 does not). tp 4: stages take the rest. The layout in the text, set as given, fits.
    const Model m = test::model("deepseek-v3");
    struct Case { json job; int64_t gpus; const char* text; int64_t tp, pp; };
    const Case cases[] = {{json::object(), 18, "fewest GPUs: 18 (TP 2 × PP 9)", 2, 9},
                          {{{"pp", 1}}, 32, "fewest GPUs: 32 (TP 32 × PP 1)", 32, 1},
                          {{{"tp", 4}}, 20, "fewest GPUs: 20 (TP 4 × PP 5)", 4, 5}};
    for (const Case& c : cases) {
        CAPTURE(c.job.dump());
        json job = c.job;
        job["gpu"] = "h100";
        job["dtype"] = "bf16";  // the checkpoint ships FP8 (dtype auto); these counts are BF16's
        const Answer a = solve(m, test::job(job), Question::MinGpus);
        CHECK(a.value == c.gpus);
        CHECK(a.text == c.text);
        json table = job;
        table["gpus"] = c.job.value("tp", 1);  // a count the job's own degrees accept
        int seen = 0;
        for (const GpuFit& f : estimate(m, test::job(table)).fits)
            if (std::string(f.id) == "h100") {
                CHECK(f.gpus_needed == c.gpus);
                ++seen;
            }
        CHECK(seen == 1);
        json at = job;
        at["gpus"] = c.gpus;
        at["tp"] = c.tp;
        at["pp"] = c.pp;
        CHECK(compute_breakdown(m, test::job(at)).total() <= 79.11 * test::GiB);
    }
    // Training on one GPU names no ZeRO stage: none is used there.
    CHECK(solve(test::model("llama-3.2-1b"), test::job({{"mode", "train"}, {"gpu", "h100"}}), Question::MinGpus).text == "fewest GPUs: 1");
}
