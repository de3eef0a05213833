// Randomized robustness test of the whole JSON API: real configs and jobs
// with random fields set to hostile values, removed, or the text itself
// truncated and corrupted. Every answer must be well-formed JSON; a success
// must hold only finite, non-negative sizes; a rejection must name a field
// and never be an internal error. Deterministic by default; set
// VRAMCALC_FUZZ_ITERATIONS / VRAMCALC_FUZZ_SEED for longer or other runs.
#include <cmath>
#include <cstdlib>
#include <random>

#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

const char* kConfigKeys[] = {
    "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size",
    "vocab_size", "model_type", "tie_word_embeddings", "num_local_experts", "num_experts", "n_routed_experts",
    "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts", "shared_expert_intermediate_size",
    "first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step", "mlp_only_layers", "kv_lora_rank", "q_lora_rank",
    "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "num_parameters", "n_embd", "n_layer", "n_head",
    "n_positions", "text_config", "architectures", "multi_query", "attention_bias",
    // KV layout keys (core/kv_layout.cpp)
    "sliding_window", "layer_types", "attention_chunk_size", "mamba_d_state", "linear_num_value_heads",
    "full_attention_interval", "attn_layer_period", "mamba_n_heads"};
const char* kJobKeys[] = {"mode", "dtype", "optimizer", "batch", "seq", "checkpointing", "flash_attention", "kv_dtype",
                          "lora_rank", "lora_targets", "adapter_dtype", "master_weights", "gpus", "tp", "pp", "zero",
                          "overhead_gb", "fragmentation", "framework", "precision", "optimizer_dtype", "optimizer_impl",
                          "paged_optimizer", "optimizer_in_backward", "fp32_gradients", "grad_accum", "activation_offload",
                          "attention", "loss", "loss_chunks", "compile", "lora_dropout", "offload_optimizer",
                          "offload_params", "cp", "report",
                          // serving fields (core/serving.cpp)
                          "engine", "gpu", "device_gib", "gpu_memory_utilization", "mem_fraction_static", "max_model_len",
                          "max_num_batched_tokens", "max_num_seqs", "chunked_prefill", "block_size", "new_tokens", "n_ubatch",
                          "n_gpu_layers", "experts_on_cpu", "gguf_rules", "swa_full", "ep", "dp_attention", "comm_buffers_gb",
                          // how the answer speaks (core/job/view_fields.cpp)
                          "units", "device_gb", "recommend_from"};

json hostile_value(std::mt19937_64& rng) {
    // Static: the deep and long values are built once.
    static const json values[] = {-1, 0, 1, 2, 3, 7, 8, 64, 4096, 1.5, -0.5, 1e300, -1e300, 1e-300, 9.2e18, 1e15, 1e7,
                           "abc", "", "llama", "deepseek_v3", "gpt2", "mixtral", "full", "train", "qlora", "nf4",
                           "q_proj", "all-linear", "vllm", "llamacpp", "sglang", "hf", "h100", "t4", "q4_k_m", "gib", "any",
                           "2023-12", "sliding_attention", nullptr, true, false, json::array(), json::array({1, 2}),
                           json::object(), json::object({{"hidden_size", 8}}),
                           // nested past the 64-level limit, a long string, text that is not plain ASCII
                           json::parse(std::string(70, '[') + std::string(70, ']')), std::string(100'000, 'x'),
                           "q_proj\u202e", json::parse("18446744073709551615")};
    return values[rng() % (sizeof values / sizeof values[0])];
}

template <size_t N>
void mutate(json& object, const char* const (&keys)[N], std::mt19937_64& rng) {
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < edits; ++i) {
        const char* key = keys[rng() % N];
        if (rng() % 4 == 0) object.erase(key);
        else object[key] = hostile_value(rng);
    }
}

std::string corrupt(std::string text, std::mt19937_64& rng) {
    if (text.empty()) return text;
    switch (rng() % 3) {
        case 0: return text.substr(0, rng() % text.size());
        case 1: text[rng() % text.size()] = static_cast<char>(rng() % 256); return text;
        default: text.insert(rng() % text.size(), 1, "{}[],:\"0-e."[rng() % 11]); return text;
    }
}

}  // namespace

TEST_CASE("fuzz: hostile configs and jobs never crash, NaN or go unexplained") {
    const char* env_iterations = std::getenv("VRAMCALC_FUZZ_ITERATIONS");
    const char* env_seed = std::getenv("VRAMCALC_FUZZ_SEED");
    const long iterations = env_iterations ? std::atol(env_iterations) : 20000;
    std::mt19937_64 rng(env_seed ? std::strtoull(env_seed, nullptr, 10) : 20261202);

    std::vector<json> configs;
    for (const auto& m : test::models()) configs.push_back(m.config);
    const json jobs[] = {json::object(), {{"mode", "train"}}, {{"mode", "qlora"}, {"lora_rank", 64}},
                         {{"mode", "lora"}, {"optimizer", "adafactor"}}, {{"gpus", 8}, {"zero", 3}, {"mode", "train"}}};

    long accepted = 0, rejected = 0;
    for (long i = 0; i < iterations; ++i) {
        json config = configs[rng() % configs.size()];
        json job = jobs[rng() % (sizeof jobs / sizeof jobs[0])];
        if (rng() % 2) mutate(config, kConfigKeys, rng);
        if (rng() % 2) mutate(job, kJobKeys, rng);
        std::string config_text = config.dump(), job_text = job.dump();
        if (rng() % 8 == 0) config_text = corrupt(config_text, rng);
        if (rng() % 8 == 0) job_text = corrupt(job_text, rng);

        const std::string answer = estimate_request(config_text, job_text);
        const json r = json::parse(answer, nullptr, false);
        INFO("config: ", config_text);
        INFO("job: ", job_text);
        INFO("answer: ", answer.substr(0, 300));
        REQUIRE_FALSE(r.is_discarded());
        if (r.at("ok").get<bool>()) {
            ++accepted;
            for (const auto& term : r.at("terms")) REQUIRE(term.at("bytes").get<double>() >= 0);
            REQUIRE(r.at("total_bytes").get<double>() > 0);
        } else {
            ++rejected;
            const std::string field = r.at("error").at("field");
            const std::string message = r.at("error").at("message");
            REQUIRE(field != "internal");
            REQUIRE_FALSE(field.empty());
            REQUIRE(message.rfind(field + ": ", 0) == 0);
            REQUIRE(message.size() < 1200);
        }
    }
    MESSAGE("fuzz: " << accepted << " accepted, " << rejected << " rejected with a named field");
    CHECK(accepted > iterations / 10);
    CHECK(rejected > iterations / 10);
}
