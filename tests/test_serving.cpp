// Serving: KV per attention kind, expert parallelism and inverse answers,
// each against a hand-derived figure.
#include <doctest/doctest.h>

#include <algorithm>

#include "text/errors.hpp"
#include "helpers.hpp"
#include "text/units.hpp"
#include "answers/inverse.hpp"
#include "memory/kv.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

Model with(const std::string& id, const json& extra) {
    json c = find_model(test::models(), id).config;
    c.update(extra);
    return prepare_model(parse_config(c));
}

Estimate run(const Model& m, const json& job) { return estimate(m, parse_job(job), false); }

}  // namespace

TEST_CASE("sliding-window KV: Gemma 2 alternates 4096-token windows with full layers") {
    // Gemma-2-9B: 42 layers, 8 kv heads × 256, bf16: 2 · 8 · 256 · 2 = 8192 bytes per token per layer.
    // transformers Gemma2Config: odd-numbered layers (1-based) slide -> 21 sliding + 21 full.
    const Model m = with("gemma-2-9b", {{"sliding_window", 4096}});
    REQUIRE(m.config.kv_kind_count(ModelConfig::KvKind::Sliding) == 21);
    const json job = {{"seq", 8192}};
    // full: 21 · 8192 · 8192; sliding: 21 · 8192 · 4096
    CHECK(run(m, job).breakdown.bytes[kKvCache] == 21.0 * 8192 * 8192 + 21.0 * 8192 * 4096);
    // swa_full: every layer at full length
    CHECK(run(m, {{"seq", 8192}, {"swa_full", true}}).breakdown.bytes[kKvCache] == 42.0 * 8192 * 8192);
    // llama.cpp iSWA: GGML_PAD(4096 · 1 + 512, 256) = 4608 cells for the sliding layers (f16 KV)
    const Estimate l = run(m, {{"seq", 8192}, {"engine", "llamacpp"}, {"dtype", "q8_0"}});
    CHECK(l.breakdown.bytes[kKvCache] == 21.0 * 8192 * 8192 + 21.0 * 8192 * 4608);
    // below the window, sliding layers hold every token
    CHECK(run(m, {{"seq", 1024}}).breakdown.bytes[kKvCache] == 42.0 * 8192 * 1024);
}

TEST_CASE("Mistral v0.1: a 4096-token window in every layer") {
    const Model m = with("mistral-7b", {{"sliding_window", 4096}});
    // 32 layers · 2 · 8 · 128 · 2 bytes = 131072 bytes per token; 32k tokens keep only 4096.
    CHECK(run(m, {{"seq", 32768}}).breakdown.bytes[kKvCache] == 131072.0 * 4096);
}

TEST_CASE("hybrid Mamba layers keep a constant state per sequence (Jamba pattern)") {
    // 8 layers, attention at offset 4 of period 8 -> 1 attention layer, 7 Mamba-1 layers.
    // Mamba-1, d_inner = 2 · 4096 = 8192: conv 3 · 8192 values (bf16) + SSM 8192 · 16 fp32
    //   = 49152 + 524288 = 573440 bytes per layer per sequence.
    const Model m = with("llama-3-8b", {{"num_hidden_layers", 8}, {"attn_layer_period", 8}, {"attn_layer_offset", 4},
                                        {"mamba_d_state", 16}, {"mamba_d_conv", 4}, {"mamba_expand", 2}});
    REQUIRE(m.config.kv_kind_count(ModelConfig::KvKind::Linear) == 7);
    const double attention = 1 * 2 * 8 * 128 * 2.0;  // bytes per token
    for (int64_t seq : {1024, 65536}) {
        CAPTURE(seq);
        CHECK(run(m, {{"seq", seq}, {"batch", 4}}).breakdown.bytes[kKvCache] ==
              attention * static_cast<double>(seq) * 4 + 7 * 573440.0 * 4);
    }
}

TEST_CASE("Qwen3-Next style layer_types: Gated DeltaNet state + every 4th layer full") {
    // conv (4 − 1) · (2 · 16 · 128 + 32 · 128) = 24576 values + recurrent 32 · 128 · 128 = 524288, bf16.
    json extra = {{"num_hidden_layers", 8}, {"linear_num_key_heads", 16}, {"linear_num_value_heads", 32},
                  {"linear_key_head_dim", 128}, {"linear_value_head_dim", 128}, {"linear_conv_kernel_dim", 4}};
    extra["layer_types"] = json::array();
    for (int i = 0; i < 8; ++i) extra["layer_types"].push_back((i + 1) % 4 ? "linear_attention" : "full_attention");
    const Model m = with("qwen3-next-80b-a3b", extra);
    // two full-attention layers of 2 KV heads × 256, K and V, bf16
    const double state = (24576.0 + 524288.0) * 2, token = 2 * 2 * 2 * 256 * 2.0;
    CHECK(run(m, {{"seq", 4096}}).breakdown.bytes[kKvCache] == token * 4096 + 6 * state);
    CHECK_THROWS_AS(with("qwen3-next-80b-a3b", {{"layer_types", {"full_attention"}}}), InputError);
}

TEST_CASE("quantized KV carries its scales") {
    const Model m = test::model("llama-3-8b");
    // int8: + fp16 scale and zero per head per token -> (128 + 4) bytes per head for K and for V.
    CHECK(run(m, {{"seq", 1000}, {"kv_dtype", "int8"}}).breakdown.bytes[kKvCache] == 32.0 * 2 * 8 * 132 * 1000);
    // q4_0: 18 bytes per 32 values.
    CHECK(run(m, {{"seq", 1024}, {"kv_dtype", "q4_0"}}).breakdown.bytes[kKvCache] == 32.0 * 2 * 8 * 128 * 1024 * 18 / 32);
}

TEST_CASE("expert parallelism with data-parallel attention (DeepSeek-V3 style)") {
    const Model m = test::model("deepseek-v3");
    const double experts = 58.0 * 256 * 3 * 7168 * 2048;  // 58 MoE layers × 256 experts × gate, up, down
    const Estimate e = run(m, {{"gpus", 8}, {"tp", 1}, {"ep", 8}, {"dp_attention", true}, {"seq", 4096}, {"batch", 16}, {"dtype", "bf16"}});
    CHECK(e.breakdown.bytes[kWeights] == doctest::Approx((m.params.total - experts) * 2 + experts * 2 / 8));
    // MLA latent (512 + 64) × 61 layers × 2 bytes, each GPU holding 16 / 8 = 2 sequences.
    CHECK(e.breakdown.bytes[kKvCache] == 576.0 * 61 * 2 * 4096 * 2);
    CHECK_THROWS_AS(run(test::model("llama-3-8b"), {{"gpus", 2}, {"ep", 2}}), InputError);
}

TEST_CASE("inverse answers fit at the answer and not one step past it") {
    const Model llama = test::model("llama-3-8b");
    struct Case {
        json job;
        const char* question;
    };
    const Case cases[] = {
        {{{"engine", "llamacpp"}, {"dtype", "q4_k_m"}, {"gpu", "t4"}}, "max_context"},
        {{{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}}, "max_batch"},
        {{{"engine", "vllm"}, {"gpu", "l4"}}, "max_context"},
        {{{"gpu", "rtx4090"}, {"seq", 8192}}, "max_batch"},
        {{{"engine", "llamacpp"}, {"gpu", "t4"}, {"seq", 32768}}, "best_format"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.job.dump());
        CAPTURE(c.question);
        const json a = json::parse(solve_request(find_model(test::models(), "llama-3-8b").config.dump(), c.job.dump(), c.question));
        REQUIRE(a["ok"].get<bool>());
        REQUIRE(a["found"].get<bool>());
        json at = c.job, next = c.job;
        const std::string q = c.question;
        const int64_t v = a["answer"], n = a["next"];
        if (q == "max_context") at["seq"] = v, next["seq"] = n;
        if (q == "max_batch") at["batch"] = v, next["batch"] = n;
        if (q == "best_format") at["dtype"] = a["format"];
        CHECK(fits_device(llama, parse_job(at)));
        if (!a["next_exists"].get<bool>()) continue;
        CHECK_FALSE(a["fits_at_next"].get<bool>());
        if (q == "best_format") next["dtype"] = a["candidates"][static_cast<size_t>(n)];
        CHECK_FALSE(fits_device(llama, parse_job(next)));
    }
    // -ngl on a 24 GB card for a 70B Q4_K_M: the answer fits, one more layer does not.
    const Model big = test::model("llama-3.1-70b");
    const json job = {{"engine", "llamacpp"}, {"dtype", "q4_k_m"}, {"gpu", "rtx4090"}, {"seq", 8192}};
    const Answer a = solve(big, parse_job(job), Question::MaxGpuLayers);
    REQUIRE(a.found);
    CHECK(a.value > 30);
    CHECK(a.value < 80);
    json at = job, next = job;
    at["n_gpu_layers"] = a.value;
    next["n_gpu_layers"] = a.value + 1;
    CHECK(fits_device(big, parse_job(at)));
    CHECK_FALSE(fits_device(big, parse_job(next)));
    // Fewest GPUs for Llama-3.1-70B bf16 under the newest vLLM at 8k on H100 (79.11 GiB usable): on 2 (TP 2)
    // the budget 0.9 × 79.11 = 71.20 GiB less 65.71 GiB of weights, 1.92 GiB of profile peak (1024 rows ×
    // 128256 × 14 B of sampler + the hidden states + 80 MiB), 2.07 GiB outside torch (0.25 + NCCL's NVLS
    // 1.82) and 2.30 GiB of CUDA graphs (in the budget from 0.21) leaves nothing; 3 (PP 3) fits.
    const Answer g = solve(big, parse_job({{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}}), Question::MinGpus);
    REQUIRE(g.found);
    CHECK(g.value == 3);
    CHECK_FALSE(fits_device(big, parse_job({{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}, {"gpus", 2}})));
    CHECK(fits_device(big, parse_job({{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}, {"gpus", 3}})));
    CHECK_THROWS_AS(solve(big, parse_job({{"engine", "vllm"}}), Question::MaxBatch), InputError);
}

TEST_CASE("engines without a GPU or with bad fields fail with the field named") {
    const Model m = test::model("llama-3-8b");
    CHECK_THROWS_WITH_AS(run(m, {{"engine", "vllm"}}), doctest::Contains("GPU"), InputError);
    CHECK_THROWS_AS(parse_job({{"engine", "vllm"}, {"mode", "train"}}), InputError);
    CHECK_THROWS_AS(parse_job({{"gpu", "h9000"}}), InputError);
    CHECK_THROWS_AS(parse_job({{"gguf_rules", "1999"}}), InputError);
    const json r = json::parse(solve_request(find_model(test::models(), "llama-3-8b").config.dump(), "{}", "max_fun"));
    CHECK(r["error"]["field"] == "question");
}

TEST_CASE("inverse answers when nothing fits: found false, answer and next null, never batch 0") {
    const std::string cfg = find_model(test::models(), "llama-3-8b").config.dump();
    // 1e8 tokens of KV (12.8 TB) on one H100: not one sequence fits. Four of them (51.2 TB) do not fit the
    // 256 GPUs (TP 8 × 32 stages) Llama 3 8B can be laid out on either (200 GB of KV each).
    for (const char* q : {"max_batch", "best_format", "min_gpus"}) {
        const json r = json::parse(solve_request(cfg, R"({"gpu":"h100","seq":100000000,"batch":4})", q));
        REQUIRE(r["ok"] == true);
        CHECK_MESSAGE(r["found"] == false, q);
        CHECK(r["answer"].is_null());
        CHECK(r["next"].is_null());
        CHECK(r["answer_label"] == "");
    }
    const json ctx = json::parse(solve_request(cfg, R"({"gpu":"t4","dtype":"fp32"})", "max_context"));
    CHECK(ctx["found"] == false);  // 32 GB of fp32 weights on a 16 GB T4: not even one token
    CHECK(ctx["text"] == "not even one token fits");
}

TEST_CASE("transformers generate: peak at prefill, or at the last token when generation is long") {
    const Model m = test::model("llama-3-8b");
    const double kv = 32.0 * 2 * 8 * 128 * 2 * 4096;       // 536,870,912 bytes for 4096 tokens
    const double logits = 128256.0 * (2 + 4);              // last-token logits, bf16 + fp32 copy
    // SDPA prefill of 4096 tokens: 4096 · (3·4096 + 3·14336) · 2 bytes.
    const Estimate sdpa = run(m, {{"engine", "hf"}, {"seq", 4096}});
    CHECK(sdpa.breakdown.bytes[kKvCache] == kv);
    CHECK(sdpa.breakdown.bytes[kActivations] == 4096.0 * 55296 * 2 + logits);
    // Eager adds the 32 × 4096 × 4096 scores in bf16 and their fp32 softmax.
    const Estimate eager = run(m, {{"engine", "hf"}, {"seq", 4096}, {"attention", "eager"}});
    CHECK(eager.breakdown.bytes[kActivations] == 4096.0 * 55296 * 2 + logits + 32.0 * 4096 * 4096 * 6);
    // A 96-token prompt generating 4000 tokens peaks at the end: the full cache, one layer's
    // cache copied by torch.cat (kv / 32) and one token's working set.
    const Estimate gen = run(m, {{"engine", "hf"}, {"seq", 4096}, {"new_tokens", 4000}});
    CHECK(gen.breakdown.bytes[kKvCache] == kv);
    CHECK(gen.breakdown.bytes[kActivations] == kv / 32 + 55296.0 * 2 + logits);
}

TEST_CASE("vLLM profile run size follows chunked prefill") {
    const Model m = test::model("llama-3-8b");
    const json base = {{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 32768}};
    CHECK(run(m, base).serving.profile_tokens == 8192);
    json off = base;
    off["chunked_prefill"] = false;
    CHECK(run(m, off).serving.profile_tokens == 32768);  // V0: max(max_model_len, 2048)
    // The pool is what the budget leaves: 0.9 × 79.11 GiB (an H100 as torch sees it) − weights − activations − non-torch
    // − the CUDA graphs (the newest vLLM takes their estimate from the budget).
    const Estimate e = run(m, base);
    const auto& b = e.breakdown.bytes;
    REQUIRE(e.serving.graphs_in_budget);
    CHECK(b[kWeights] + b[kActivations] + b[kOverhead] + b[kBuffers] + b[kKvCache] == doctest::Approx(0.9 * 79.11 * test::GiB));
    CHECK(e.serving.pool_tokens == e.serving.pool_blocks * 16);
    // vLLM's maximum concurrency: whole blocks' tokens over max_model_len.
    CHECK(e.serving.max_concurrency == doctest::Approx(e.serving.pool_tokens / 32768.0));
    CHECK(e.serving.pool_tokens == doctest::Approx(b[kKvCache] / 131072.0).epsilon(1e-3));
    // The pool is handed out in whole blocks: one block larger than the pool leaves nothing usable.
    json huge = base;
    huge["block_size"] = 1'000'000;
    CHECK_FALSE(run(m, huge).serving.fits);
}

TEST_CASE("vLLM: a pool just short of one request reads below 1x beside 'does not fit'") {
    // Llama 3 70B BF16 on 2 H100 at 4096 tokens under vLLM 0.6.5 with an 8064-token profile: the pool
    // holds 255 blocks × 16 = 4080 tokens, 4080 / 4096 = 0.996 requests. Rounded like vLLM's "%.2fx" it
    // would read 1.00x; cut, 0.99x.
    const Estimate e = run(test::model("llama-3-70b"), {{"engine", "vllm"}, {"vllm_version", "0.6.5"}, {"gpu", "h100"}, {"gpus", 2},
                                                       {"seq", 4096}, {"max_num_batched_tokens", 8064}});
    CHECK(e.serving.pool_tokens == 4080);
    CHECK_FALSE(e.serving.fits);
    CHECK(e.serving.max_concurrency == doctest::Approx(4080.0 / 4096));
    CHECK(e.serving.verdict.find("maximum concurrency for 4096 tokens per request: 0.99x") != std::string::npos);
}

TEST_CASE("vLLM: the concurrency figure agrees with the verdict for windows, chunks and state-space layers") {
    // One request of max_model_len (batch 1 at seq): "fits" exactly when the maximum concurrency is at least 1,
    // for sliding windows (Gemma 3), hybrid Mamba (Jamba), pure Mamba and full attention, near each threshold.
    int checked = 0;
    for (const char* id : {"gemma-3-27b", "jamba-v0.1", "mamba-2.8b", "llama-3-8b", "llama-3-70b"})
        for (double util : {0.5, 0.6, 0.7, 0.712, 0.8, 0.9, 0.95})
            for (int64_t seq : {4096, 32768, 131072}) {
                CAPTURE(id);
                CAPTURE(util);
                CAPTURE(seq);
                Estimate e;
                try {
                    e = run(test::model(id), {{"engine", "vllm"}, {"gpu", "h200"}, {"seq", seq}, {"gpu_memory_utilization", util}});
                } catch (const InputError&) {
                    continue;  // longer than the model's context
                }
                CHECK(e.serving.fits == (e.serving.max_concurrency >= 1));
                ++checked;
            }
    CHECK(checked > 60);
}

TEST_CASE("concurrency text is cut to two decimals, never rounded up") {
    CHECK(concurrency_text(4080.0 / 4096) == "0.99x");  // 0.996
    CHECK(concurrency_text(29.0 / 100) == "0.29x");     // 28.999999999999996 / 100 in binary
    CHECK(concurrency_text(2.0) == "2.00x");
    CHECK(concurrency_text(35120.0 / 8192) == "4.28x");  // 4.287
    CHECK(concurrency_text(0) == "0.00x");
}

TEST_CASE("llama.cpp partial offload: -ngl layers on the GPU, the rest and their KV in RAM") {
    const Model m = test::model("llama-3-8b");
    const json all = {{"engine", "llamacpp"}, {"dtype", "q4_k_m"}, {"seq", 4096}};
    json half = all;
    half["n_gpu_layers"] = 16;
    const Estimate a = run(m, all), h = run(m, half);
    // Same file either way: GPU + CPU weights add up to the GGUF size.
    const double file = a.breakdown.bytes[kWeights] + 281.8125 * 1048576;
    CHECK(h.breakdown.bytes[kWeights] < a.breakdown.bytes[kWeights] / 2);
    CHECK(h.serving.gpu_layers == 16);
    // Half the KV (16 of 32 layers, 64 MiB per 512 tokens → 256 MiB) on each side.
    CHECK(h.breakdown.bytes[kKvCache] == 256.0 * 1048576);
    CHECK(h.serving.cpu_bytes == doctest::Approx(file - h.breakdown.bytes[kWeights] + 256.0 * 1048576 +
                                                 (4096.0 * 0 + 512.0 * 128256 * 4 + 512.0 * 4096 * 4)));
}

TEST_CASE("llama.cpp -ot exps=CPU keeps Mixtral's routed experts in system RAM") {
    const Model m = test::model("mixtral-8x7b");
    const json job = {{"engine", "llamacpp"}, {"dtype", "q4_k_m"}, {"gguf_rules", "2023-12"}, {"seq", 2048}, {"experts_on_cpu", true}};
    // Experts per layer: 3 × 8 × 4096 × 14336 values in q4_K (144 bytes per 256) = 792,723,456 bytes.
    const double experts = 32 * 792'723'456.0;
    const Estimate e = run(m, job);
    CHECK(e.breakdown.bytes[kWeights] == doctest::Approx(25145.55 * 1048576 - experts).epsilon(1e-5));
    CHECK(e.serving.cpu_bytes >= experts);
}

TEST_CASE("your own GPU (device_gib): a fit row like a catalog GPU of that size, and inverse answers on it") {
    const Model m = test::model("llama-3-8b");
    // A custom GPU of 23.64 GiB answers exactly as the RTX 4090 (23.64 GiB usable in the catalog) does.
    for (const json& job : {json{{"seq", 8192}, {"batch", 4}}, json{{"mode", "train"}}}) {
        json with_custom = job;
        with_custom["device_gib"] = 23.64;
        const Estimate e = run(m, with_custom);
        REQUIRE(!e.fits.empty());
        const GpuFit& custom = e.fits.back();
        CHECK(std::string(custom.id) == "custom");
        CHECK(custom.custom);
        CHECK(custom.capacity_bytes == 23.64 * 1024 * 1024 * 1024);
        const auto rtx = std::find_if(e.fits.begin(), e.fits.end(), [](const GpuFit& f) { return std::string(f.id) == "rtx4090"; });
        REQUIRE(rtx != e.fits.end());
        CHECK(custom.fits_as_configured == rtx->fits_as_configured);
        CHECK(custom.gpus_needed == rtx->gpus_needed);
        CHECK(run(m, job).fits.size() + 1 == e.fits.size());  // no row without device_gib
    }
    // The inverse answers take device_gib in place of a catalog id, and name both steps.
    const std::string config = find_model(test::models(), "llama-3-8b").config.dump();
    const json custom = json::parse(solve_request(config, R"({"device_gib": 23.64, "seq": 8192})", "max_batch"));
    const json catalog = json::parse(solve_request(config, R"({"gpu": "rtx4090", "seq": 8192})", "max_batch"));
    REQUIRE(custom["ok"].get<bool>());
    CHECK(custom["answer"] == catalog["answer"]);
    CHECK(custom["answer_label"] == "batch " + std::to_string(custom["answer"].get<int64_t>()));
    CHECK(custom["next_label"] == "batch " + std::to_string(custom["next"].get<int64_t>()));
    CHECK(custom["total_at_next_text"].get<std::string>().find(" GB") != std::string::npos);
    const json format = json::parse(solve_request(config, R"({"engine": "llamacpp", "gpu": "t4", "seq": 32768})", "best_format"));
    REQUIRE(format["found"].get<bool>());
    CHECK(format["answer_label"] == "format " + format["format"].get<std::string>());
    // A capacity out of range is refused under its own name.
    for (const json& bad : {json(-1), json(0.5e6), json("twenty")}) {
        try {
            parse_job({{"device_gib", bad}});
            FAIL("accepted device_gib " << bad.dump());
        } catch (const InputError& e) {
            CHECK(e.field() == "job.device_gib");
        }
    }
}

TEST_CASE("the GPU table and the fewest-GPUs answer agree, past 64 GPUs too (adversarial review)") {
    const std::string cfg = find_model(test::models(), "deepseek-v3").config.dump();
    const Model m = test::model("deepseek-v3");
    const Estimate e = estimate(m, test::job({{"mode", "inference"}}), false);
    for (const char* gpu : {"rtx4090", "rtx3060"}) {
        int64_t table = 0;
        for (const auto& f : e.fits)
            if (std::string(f.id) == gpu) table = f.gpus_needed;
        REQUIRE(table > 0);  // the table finds a count (TP 8 × PP across nodes), never "at no count"
        const json a = json::parse(solve_request(cfg, std::string(R"({"gpu":")") + gpu + "\"}", "min_gpus"));
        CHECK_MESSAGE(a["answer"] == table, gpu);
    }
}

namespace {
void no_negative(const json& v, const std::string& path) {
    if (v.is_number()) CHECK_MESSAGE(v.get<double>() >= 0, path);
    if (v.is_structured())
        for (auto it = v.begin(); it != v.end(); ++it) no_negative(*it, path + "." + (v.is_object() ? it.key() : "[]"));
}
}  // namespace

TEST_CASE("a budget smaller than the weights: no pool, its shortfall said, no negative figure anywhere") {
    const std::string cfg = find_model(test::models(), "llama-3-8b").config.dump();
    const json r = json::parse(estimate_request(cfg, R"({"engine":"vllm","device_gib":1})"));
    REQUIRE(r["ok"] == true);
    CHECK(r["serving"]["kv_pool_bytes"] == 0);
    CHECK(r["serving"]["kv_pool_shortfall_bytes"].get<double>() > 16e9);  // ~16 GB of bf16 weights over a 1 GiB budget
    for (auto it = r.begin(); it != r.end(); ++it)
        if (it.key() != "job") no_negative(*it, it.key());  // the job echo holds settings (n_gpu_layers -1 = all)
}
