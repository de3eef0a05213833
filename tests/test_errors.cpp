// Bad input: every rejection is an InputError naming the field, and the JSON
// API turns it into {"ok": false, "error": {"field", "message"}}.
#include <doctest/doctest.h>

#include <cmath>

#include "text/errors.hpp"
#include "helpers.hpp"
#include "text/json_writer.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

// The field an estimate request is rejected for ("" when it succeeds).
std::string rejected_field(const std::string& config, const std::string& job) {
    const json r = json::parse(estimate_request(config, job));
    if (r.at("ok").get<bool>()) return "";
    const std::string field = r.at("error").at("field").get<std::string>();
    const std::string message = r.at("error").at("message").get<std::string>();
    CHECK(message.find(field) == 0);  // the message starts with the field's name
    CHECK(message.size() > field.size() + 10);
    return field;
}

const std::string kLlama = test::fixture("llama-3-8b.config.json");

std::string llama_without(const std::string& key) {
    json c = json::parse(kLlama);
    c.erase(key);
    return c.dump();
}
std::string llama_with(const std::string& key, const json& value) {
    json c = json::parse(kLlama);
    c[key] = value;
    return c.dump();
}

}  // namespace

TEST_CASE("malformed and unknown configs") {
    CHECK(rejected_field(test::fixture("malformed.config.json"), "{}") == "config");
    CHECK(rejected_field("", "{}") == "config");
    CHECK(rejected_field("[1,2]", "{}") == "config");
    CHECK(rejected_field(test::fixture("unknown-arch.config.json"), "{}") == "config.model_type");
    CHECK(rejected_field("{}", "{}") == "config.model_type");
    const json r = json::parse(estimate_request(test::fixture("unknown-arch.config.json"), "{}"));
    CHECK(r["error"]["message"].get<std::string>().find("rwkv") != std::string::npos);
}

TEST_CASE("missing, negative, fractional and absurd config fields") {
    CHECK(rejected_field(llama_without("hidden_size"), "{}") == "config.hidden_size");
    CHECK(rejected_field(llama_without("num_hidden_layers"), "{}") == "config.num_hidden_layers");
    CHECK(rejected_field(llama_without("vocab_size"), "{}") == "config.vocab_size");
    CHECK(rejected_field(llama_without("intermediate_size"), "{}") == "config.intermediate_size");
    CHECK(rejected_field(llama_with("hidden_size", -4096), "{}") == "config.hidden_size");
    CHECK(rejected_field(llama_with("hidden_size", 0), "{}") == "config.hidden_size");
    CHECK(rejected_field(llama_with("hidden_size", 4096.5), "{}") == "config.hidden_size");
    CHECK(rejected_field(llama_with("hidden_size", "4096"), "{}") == "config.hidden_size");
    CHECK(rejected_field(llama_with("num_hidden_layers", 1e12), "{}") == "config.num_hidden_layers");
    CHECK(rejected_field(llama_with("num_key_value_heads", 7), "{}") == "config.num_key_value_heads");
    CHECK(rejected_field(llama_with("num_attention_heads", 30), "{}") == "config.num_attention_heads");
    CHECK(rejected_field(llama_with("tie_word_embeddings", "no"), "{}") == "config.tie_word_embeddings");
    // Each dimension is within bounds, but together they describe > 1e15 parameters.
    json huge = json::parse(test::fixture("mixtral-8x7b.config.json"));
    huge["num_local_experts"] = 100000;
    huge["num_hidden_layers"] = 10000;
    CHECK(rejected_field(huge.dump(), "{}") == "config");
    json topk = json::parse(test::fixture("mixtral-8x7b.config.json"));
    topk["num_experts_per_tok"] = 9;
    CHECK(rejected_field(topk.dump(), "{}") == "config.num_experts_per_tok");
}

TEST_CASE("explicit parameter counts") {
    CHECK(rejected_field(R"({"num_parameters": -5})", "{}") == "config.num_parameters");
    CHECK(rejected_field(R"({"num_parameters": 1e20})", "{}") == "config.num_parameters");
    // Without dimensions, the terms that need them say which field is missing.
    CHECK(rejected_field(R"({"num_parameters": 7e9})", "{}") == "config.hidden_size");
    CHECK(rejected_field(R"({"num_parameters": 7e9})", R"({"mode":"lora"})") == "config");
    // With dimensions, the estimate works.
    CHECK(rejected_field(
              R"({"num_parameters": 7e9, "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 32000})",
              "{}") == "");
}

TEST_CASE("bad job fields name the field") {
    const std::pair<const char*, const char*> cases[] = {
        {R"({"batch": -1})", "job.batch"},
        {R"({"batch": 0})", "job.batch"},
        {R"({"batch": 1.5})", "job.batch"},
        {R"({"batch": "eight"})", "job.batch"},
        {R"({"seq": 1e12})", "job.seq"},
        {R"({"mode": "pretrain"})", "job.mode"},
        {R"({"dtype": "fp4"})", "job.dtype"},
        {R"({"mode": "train", "dtype": "int4"})", "job.dtype"},
        {R"({"optimizer": "lion"})", "job.optimizer"},
        {R"({"kv_dtype": "q4_k_m"})", "job.kv_dtype"},
        {R"({"gpus": 6, "tp": 4})", "job.gpus"},
        {R"({"gpus": 64, "tp": 64})", "job.tp"},
        {R"({"gpus": 6, "tp": 3, "pp": 2})", "job.tp"},   // 32 heads do not split 3 ways
        {R"({"gpus": 257})", "job.gpus"},                 // inference: TP 1 × 257 stages > 32 layers
        {R"({"gpus": 64, "pp": 64})", "job.pp"},
        {R"({"zero": 4})", "job.zero"},
        {R"({"fragmentation": 2})", "job.fragmentation"},
        {R"({"flash_attention": "yes"})", "job.flash_attention"},
        {R"({"mode": "lora", "lora_targets": "q_proj,wq"})", "job.lora_targets"},
        {R"({"adapter_dtype": "int8"})", "job.adapter_dtype"},
        {R"({"bacth": 4})", "job.bacth"},
        {R"([1])", "job"},
        {R"({"batch": )", "job"},
    };
    for (const auto& [job_json, field] : cases) {
        const char* job = job_json;  // CAPTURE's lambda cannot capture a structured binding before C++20
        CAPTURE(job);
        CHECK(rejected_field(kLlama, job) == field);
    }
}

TEST_CASE("a good request returns ok with finite numbers") {
    const json r = json::parse(estimate_request(kLlama, R"({"mode":"train","gpus":8,"zero":3})"));
    REQUIRE(r["ok"].get<bool>());
    CHECK(r["terms"].size() == kTermCount);
    CHECK(r["total_bytes"].get<double>() > 0);
    CHECK(r["fits"].size() >= 10);
}

TEST_CASE("models.json problems name the entry") {
    CHECK_THROWS_WITH_AS(parse_models("{\"models\": [{\"id\": \"x\"}]}"), doctest::Contains("models[0].name"),
                         InputError);
    CHECK_THROWS_WITH_AS(find_model(test::models(), "llama-9"), doctest::Contains("unknown model 'llama-9'"),
                         InputError);
}

TEST_CASE("JSON numbers: whole, fractional at every magnitude, and rejected non-finite") {
    // Each written number must read back within 12 significant digits (relative error <= 5e-12).
    for (double v : {0.0, 1.0, -3.0, 0.05, 0.125, 1.5e-3, 123456789012.5, 999999999999.9, 5.0e11 + 0.5, 1e12 + 0.5,
                     18868203673.6, 1e-9, 9.5e15, -0.75}) {
        CAPTURE(v);
        JsonWriter w;
        w.begin_array().value(v).end_array();
        const double back = json::parse(w.str())[0].get<double>();
        CHECK(std::fabs(back - v) <= 5e-12 * std::fabs(v));
    }
    JsonWriter w;
    w.begin_object();
    CHECK_THROWS_WITH(w.field("share", std::nan("")), doctest::Contains("non-finite number for 'share'"));
}

TEST_CASE("the page's path (use_config + estimate_current) answers exactly like estimate_request") {
    const std::string llama = test::fixture("llama-3-8b.config.json");
    const std::string job = R"({"mode":"train","gpus":8,"zero":3})";
    CHECK(json::parse(use_config(llama))["model"]["params_total"] == 8'030'261'248.0);
    CHECK(estimate_current(job) == estimate_request(llama, job));
    CHECK(estimate_current("{}") == estimate_request(llama, "{}"));
    // A rejected config is remembered: every estimate answers with its error.
    const json bad = json::parse(use_config(test::fixture("unknown-arch.config.json")));
    CHECK(bad["error"]["field"] == "config.model_type");
    CHECK(json::parse(estimate_current(job)) == bad);
    // A bad job is reported for the current model.
    use_config(llama);
    CHECK(json::parse(estimate_current(R"({"batch":0})"))["error"]["field"] == "job.batch");
}
