// Serving beside the model (issue 36), each figure derived by hand from the engines' code:
// speculative decoding's proposer (a draft model, an EAGLE-3 head, DeepSeek-V3's MTP layer),
// multi-LoRA slots (vllm/lora/layers/base_linear.py) and several jobs on one GPU.
#include <algorithm>
#include <cstdlib>
#include <map>

#include <doctest/doctest.h>

#include "api/sweep.hpp"
#include "hardware/gpus.hpp"
#include "helpers.hpp"
#include "text/errors.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

std::string error_field(const Model& m, const json& job) {
    try {
        estimate(m, test::job(job));
    } catch (const InputError& e) {
        return e.field();
    }
    return "";
}

// Draft models named by catalog id: the resolver the API installs with the catalog, here the tests'.
void use_test_catalog() {
    set_model_resolver([](const json& ref, const std::string&) {
        return std::make_shared<const Model>(test::model(ref.get<std::string>()));
    });
}

}  // namespace

TEST_CASE("DeepSeek-V3 with one MTP layer in vLLM: the layer's weights and its KV in the pool") {
    const Model m = test::model("deepseek-v3");
    const json base = {{"engine", "vllm"}, {"gpu", "h200"}, {"gpus", 8}};
    json mtp = base;
    mtp["speculative_method"] = "mtp";
    const Estimate plain = estimate(m, test::job(base));
    const Estimate e = estimate(m, test::job(mtp));
    // One MoE decoder layer (h 7168, MLA q_lora 1536, kv_lora 512, 128 heads of 128 + 64 rope, 256 experts and one
    // shared of 2048, the router and its bias, four norms), eh_proj 2h → h and enorm, hnorm, the shared head's norm.
    const double h = 7168;
    const double attention = h * 1536 + 1536 + 1536 * (128 * 192) + h * (512 + 64) + 512 + 512 * (128 * (128 + 128)) + 128 * 128 * h;
    const double moe = 257 * 3 * h * 2048 + 256 * h + 256;
    const double layer = attention + moe + 2 * h + 2 * h * h + 3 * h;
    CHECK(layer == doctest::Approx(11.6e9).epsilon(0.01));  // DeepSeek-V3's 14 B MTP module less its copies of embedding and head
    // In the checkpoint's own format: FP8 blocks, the average bytes per parameter of the model's weights.
    CHECK(e.serving.spec_weights == doctest::Approx(layer * plain.weights_reference_bytes / m.params.total / 8).epsilon(0.002));
    CHECK(e.breakdown.bytes[kWeights] - plain.breakdown.bytes[kWeights] == doctest::Approx(e.serving.spec_weights));
    // Its KV: one more MLA layer's latent, (512 + 64) × 2 bytes per token, in the same pool as the 61 layers'.
    CHECK(e.serving.spec_kv_per_token == doctest::Approx(576 * 2));
    CHECK(e.serving.kv_per_token == doctest::Approx(62.0 * 576 * 2));
    const double pool = std::max(0.0, e.serving.kv_pool);
    CHECK(static_cast<double>(e.serving.pool_tokens) == doctest::Approx(pool / (62.0 * 576 * 2)).epsilon(0.001));
    // A model without MTP layers refuses the method, naming it.
    CHECK(error_field(test::model("llama-3.1-8b"), {{"engine", "vllm"}, {"gpu", "h100"}, {"speculative_method", "mtp"}}) ==
          "job.speculative_method");
}

TEST_CASE("EAGLE-3 head for Llama 3.1 8B in vLLM: its layer reads 2h, a 3h → h fusion, its own 32k-token head") {
    const Model m = test::model("llama-3.1-8b");
    const Estimate e = estimate(m, test::job({{"engine", "vllm"}, {"gpu", "h100"}, {"speculative_method", "eagle3"}}));
    const double h = 4096;
    const double params = 2 * h * (32 + 16) * 128 + 32 * 128 * h + 3 * h * 14336 + 2 * h + 3 * h * h + 32000 * h + h;
    CHECK(e.serving.spec_weights == doctest::Approx(params * 2));
    CHECK(e.serving.spec_kv_per_token == doctest::Approx(2 * 8 * 128 * 2));  // one layer: K and V of 8 kv heads × 128, bf16
    // n-gram lookup keeps nothing.
    const Estimate ngram = estimate(m, test::job({{"engine", "vllm"}, {"gpu", "h100"}, {"speculative_method", "ngram"}}));
    CHECK(ngram.serving.spec_weights == 0);
    CHECK(ngram.serving.spec_kv_per_token == 0);
}

TEST_CASE("a draft model: its weights and KV; another vocabulary is refused") {
    use_test_catalog();
    const Model target = test::model("llama-3.1-70b");
    const Model draft = test::model("llama-3.2-1b");
    const Estimate e = estimate(target, test::job({{"engine", "vllm"}, {"gpu", "h100"}, {"gpus", 4}, {"speculative_model", "llama-3.2-1b"}}));
    // vLLM's draft runs at the target's TP (draft_tensor_parallel_size): its bf16 weights ÷ 4, and per token
    // its 16 layers' K and V of 8 kv heads ÷ 4 × 64 dims × 2 bytes.
    CHECK(e.serving.spec_weights == doctest::Approx(draft.params.total * 2 / 4));
    CHECK(e.serving.spec_kv_per_token == doctest::Approx(16.0 * 2 * 2 * 64 * 2));
    // Qwen2.5-0.5B pads its vocabulary to 151,936, Qwen2.5-7B to 152,064: 128 apart, the same tokenizer.
    CHECK(error_field(test::model("qwen2.5-7b"), {{"engine", "vllm"}, {"gpu", "h100"}, {"speculative_model", "qwen2.5-0.5b"}}) == "");
    // Llama 3.1's 128,256 tokens against Qwen's 151,936: refused, as vLLM and llama.cpp refuse it.
    CHECK(error_field(target, {{"engine", "vllm"}, {"gpu", "h100"}, {"gpus", 4}, {"speculative_model", "qwen2.5-0.5b"}}) ==
          "job.speculative_model");
    // llama.cpp -md: the draft's weights and its KV for the context beside the model.
    const Estimate l = estimate(test::model("llama-3.1-8b"),
                                test::job({{"engine", "llamacpp"}, {"gpu", "rtx4090"}, {"seq", 8192}, {"speculative_model", "llama-3.2-1b"}}));
    CHECK(l.serving.spec_kv == doctest::Approx(8192.0 * 16 * 2 * 8 * 64 * 2));
    CHECK(error_field(test::model("llama-3.1-8b"), {{"engine", "llamacpp"}, {"speculative_method", "eagle3"}}) == "job.speculative_method");
    set_model_resolver(nullptr);
}

TEST_CASE("multi-LoRA serving in vLLM: max_loras × max_lora_rank × (in + out) of every linear, the pool shrinks") {
    const Model m = test::model("llama-3.1-8b");
    const json base = {{"engine", "vllm"}, {"gpu", "h100"}};
    json lora = base;
    lora["enable_lora"] = true;
    lora["max_loras"] = 4;
    lora["max_lora_rank"] = 64;
    const Estimate e = estimate(m, test::job(lora));
    // Per layer: q (4096 + 4096), k and v (4096 + 1024), o (4096 + 4096), gate and up (4096 + 14336), down (14336 + 4096).
    const double per_layer = 2 * (4096 + 4096) + 2 * (4096 + 1024) + 3 * (4096 + 14336);
    const double slots = 4.0 * 64 * per_layer * 32 * 2;
    CHECK(e.serving.lora_slots == doctest::Approx(slots));
    CHECK(e.serving.lora_cpu == doctest::Approx(slots));  // max_cpu_loras defaults to max_loras
    const Estimate plain = estimate(m, test::job(base));
    CHECK(plain.serving.kv_pool - e.serving.kv_pool == doctest::Approx(slots).epsilon(1e-6));
    // TP 2: column-parallel B and row-parallel A halve.
    lora["gpus"] = 2;
    const double tp2 = 4.0 * 64 * 32 * 2 *
                       ((4096 + 4096 / 2.0) + 2 * (4096 + 1024 / 2.0) + (4096 / 2.0 + 4096) + 2 * (4096 + 14336 / 2.0) + (14336 / 2.0 + 4096));
    CHECK(estimate(m, test::job(lora)).serving.lora_slots == doctest::Approx(tp2));
    CHECK(error_field(m, {{"engine", "vllm"}, {"gpu", "h100"}, {"enable_lora", true}, {"max_loras", 4}, {"max_cpu_loras", 2}}) ==
          "job.max_cpu_loras");
}

TEST_CASE("an LLM, an embedder and a reranker on one 24 GB GPU: one verdict, the shares of the whole GPU") {
    use_test_catalog();
    const Model llm = test::model("qwen2.5-7b");
    const json job = {{"engine", "vllm"}, {"gpu", "rtx4090"}, {"dtype", "awq"}, {"gpu_memory_utilization", 0.6}, {"seq", 8192},
                      {"max_model_len", 8192},
                      {"machine_jobs", json::array({{{"model", "bge-m3"}, {"engine", "hf"}, {"batch", 32}, {"seq", 512}},
                                                    {{"model", "bge-m3"}, {"head", "sequence_classification"}, {"num_labels", 1},
                                                     {"engine", "hf"}, {"batch", 16}, {"seq", 1024}}})}};
    const Estimate e = estimate(llm, test::job(job));
    REQUIRE(e.colocation.active);
    REQUIRE(e.colocation.jobs.size() == 3);
    const double device = gpu_bytes(*test::job(job).gpu);
    // vLLM holds its share of the whole GPU (0.21+: its graphs inside it).
    CHECK(e.colocation.jobs[0].bytes == doctest::Approx(0.6 * device).epsilon(1e-9));
    // The embedder: its own process (1.0 GB of CUDA context), BF16 weights of XLM-R large (568 M), one forward.
    const Model bge = test::model("bge-m3");
    const Estimate embed = estimate(bge, test::job({{"engine", "hf"}, {"gpu", "rtx4090"}, {"batch", 32}, {"seq", 512}}));
    CHECK(e.colocation.jobs[1].bytes == doctest::Approx(embed.breakdown.total()));
    CHECK(embed.breakdown.bytes[kWeights] == doctest::Approx(bge.params.total * 2));
    double sum = 0;
    for (const ColocationEntry& j : e.colocation.jobs) sum += j.bytes;
    CHECK(e.colocation.total_bytes == doctest::Approx(sum));
    CHECK(e.colocation.fits == (sum <= device));
    CHECK(e.colocation.fits);
    // Two vLLM instances at 0.9 and 0.3: 1.2 of one GPU, refused naming the second's share.
    json two = {{"engine", "vllm"}, {"gpu", "h100"},
                {"machine_jobs", json::array({{{"model", "qwen2.5-0.5b"}, {"engine", "vllm"}, {"gpu_memory_utilization", 0.3}}})}};
    CHECK(error_field(llm, two) == "job.machine_jobs[0].gpu_memory_utilization");
    two["gpu_memory_utilization"] = 0.6;
    CHECK(error_field(llm, two) == "");
    // A machine job on another GPU is refused.
    two["machine_jobs"][0]["gpu"] = "a100-80";
    CHECK(error_field(llm, two) == "job.machine_jobs[0].gpu");
    set_model_resolver(nullptr);
}

// options().field_modes, which the page follows to leave a field out of another mode's job: each field listed is
// refused, naming itself, in a mode outside its list when given a value that takes effect there (hand-picked per
// field from finish_posttrain / finish_serving_extras), and read in a mode of its list.
TEST_CASE("field_modes: a mode-bound field is refused outside its modes and read inside them") {
    use_test_catalog();
    const Model m = test::model("qwen2.5-0.5b");
    std::map<std::string, std::vector<std::string>> modes;
    for (const ModeBoundField& f : mode_bound_fields()) modes[f.field] = f.modes;
    const json values = {{"policy", "lora"}, {"beta", 0.1}, {"num_generations", 4}, {"max_completion_length", 256},
                         {"use_vllm", true}, {"vllm_gpu_memory_utilization", 0.4}, {"sleep_mode", 1},
                         {"precompute_ref_log_probs", true}, {"speculative_method", "ngram"}, {"enable_lora", true},
                         {"machine_jobs", json::array({{{"model", "qwen2.5-0.5b"}, {"engine", "hf"}}})}};
    for (const auto& item : values.items()) {
        // (Named copies, not a structured binding: clang refuses a binding captured by doctest's message lambdas.)
        const std::string key = item.key();
        const json value = item.value();
        REQUIRE_MESSAGE(modes.count(key), key);
        const std::vector<std::string>& in = modes[key];
        const std::string inside = in.front();
        std::string outside;
        for (const std::string c : {"grpo", "dpo", "train", "inference"})
            if (outside.empty() && std::find(in.begin(), in.end(), c) == in.end()) outside = c;
        json job = {{key, value}, {"gpu", "h100"}, {"batch", 8}};
        if (key == "speculative_method") job["engine"] = "vllm";
        job["mode"] = inside;
        CHECK_MESSAGE(error_field(m, job) == "", key, " in mode ", inside);
        job["mode"] = outside;
        if (outside != "inference") job.erase("engine");
        CHECK_MESSAGE(error_field(m, job) == "job." + key, key, " in mode ", outside);
    }
    CHECK(modes["num_generations"] == std::vector<std::string>{"grpo", "ppo", "rloo"});
    CHECK(modes["precompute_ref_log_probs"] == std::vector<std::string>{"dpo", "kto"});
    CHECK(modes["machine_jobs"] == std::vector<std::string>{"inference", "train", "lora", "qlora"});
    set_model_resolver(nullptr);
}

// The precision × mode matrix of a post-training job (the page shows it under every job): each cell is the policy's
// job in that mode without the fields the mode refuses, equal to the cell of the same job given without them (the
// checkpointing given to both: the matrix holds the job's own across its cells, and TRL's GRPO preset checkpoints).
TEST_CASE("matrix of a GRPO job: its cells are those of the policy's plain job") {
    const std::string config = find_model(test::models(), "qwen2.5-0.5b").config.dump();
    REQUIRE(json::parse(use_config(config))["ok"] == true);
    const json grpo = json::parse(matrix_json(R"({"mode": "grpo", "framework": "trl", "policy": "lora", "use_vllm": true,
        "num_generations": 4, "max_completion_length": 256, "beta": 0.04, "gpu": "h100", "batch": 8, "checkpointing": "none"})"));
    const json plain = json::parse(matrix_json(R"({"framework": "trl", "gpu": "h100", "batch": 8, "checkpointing": "none"})"));
    REQUIRE(grpo["ok"] == true);
    REQUIRE(plain["ok"] == true);
    int numbers = 0;
    for (size_t r = 0; r < plain["rows"].size(); ++r)
        for (size_t c = 0; c < plain["rows"][r]["cells"].size(); ++c) {
            const json& want = plain["rows"][r]["cells"][c];
            CHECK(grpo["rows"][r]["cells"][c] == want);
            numbers += want.contains("total_bytes");
        }
    CHECK(numbers >= 40);  // 4 modes × the formats each mode takes
    CHECK(grpo["rows"][0]["cells"][0].contains("total_bytes"));
}
